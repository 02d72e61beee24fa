// GLES 3.1 back end of the GPU workload harness (wl_common.h has the result-line format and the API-neutral
// calls): EGL on the surfaceless platform (no window system), a GLES 3.1 context, GLSL ES compute shaders on
// shader storage buffers. The calls below are the GLES-only ones, for workloads that have no OpenCL version.
#ifndef VPLAT_WORKLOAD_H
#define VPLAT_WORKLOAD_H

#include <EGL/egl.h>
#include <GLES3/gl31.h>

#include "wl_common.h"

// Destroys the context and makes a new current one with the same flags (after a lost context); 0 on failure.
int wl_recreate_context(struct wl* w, unsigned flags);
// Compiles and links "#version 310 es" + defines + body; on failure prints the info log and FAILs.
GLuint wl_program(struct wl* w, const char* defines, const char* body);
// Sets a uniform of the current program; a name the program does not have is a FAIL (a typo must not pass).
void wl_uniform_u(struct wl* w, GLuint prog, const char* name, GLuint v);
void wl_uniform_i(struct wl* w, GLuint prog, const char* name, GLint v);
void wl_uniform_f(struct wl* w, GLuint prog, const char* name, GLfloat v);

// Shader storage buffers. wl_ssbo creates one of `bytes` (initialised from `init` if not NULL, else zero).
GLuint wl_ssbo(struct wl* w, size_t bytes, const void* init);
void wl_bind(GLuint binding, GLuint buf);
void wl_upload(struct wl* w, GLuint buf, size_t offset, size_t bytes, const void* src);
void wl_read(struct wl* w, GLuint buf, size_t offset, size_t bytes, void* dst);

// One glDispatchCompute, counted in gpu_jobs, followed by a storage barrier so the next dispatch or read sees
// its writes. A GL error here is a FAIL.
void wl_dispatch(struct wl* w, GLuint x, GLuint y, GLuint z);
int wl_has_gl_extension(const char* ext);

#endif
