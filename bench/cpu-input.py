#!/usr/bin/env python3
"""Writes the 20 MiB input of bench/cpu-workloads.sh: the same bytes every time (fixed seed).

The file is 320 blocks of 64 KiB; each block is text-like with probability 3/4 (words drawn from a small
vocabulary, with line breaks, so the compressors find matches and skewed symbol statistics), otherwise random
bytes (incompressible), so each compressor meets both kinds of data.
"""
import random
import sys

SIZE = 20 * 1024 * 1024
BLOCK = 64 * 1024
SEED = 20261121

def main(path):
    rng = random.Random(SEED)
    syllables = ["ka", "lo", "ri", "ne", "ta", "mu", "so", "vi", "de", "pa", "an", "er", "is", "on", "ur"]
    vocab = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(2000)]
    # A Zipf-like weighting: a few words are common, most are rare, as in prose.
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    out = bytearray()
    while len(out) < SIZE:
        if rng.random() < 0.75:
            words = rng.choices(vocab, weights, k=BLOCK // 5)
            text = []
            for i, w in enumerate(words):
                text.append(w)
                text.append("\n" if i % 12 == 11 else " ")
            out += "".join(text).encode()[:BLOCK]
        else:
            out += rng.randbytes(BLOCK)
    with open(path, "wb") as f:
        f.write(out[:SIZE])

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: cpu-input.py OUTPUT")
    main(sys.argv[1])
