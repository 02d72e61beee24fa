#include "stubs.h"

void expect_dabt(int vec, u64 ec, u64 wnr, u64 dfsc, u64 far, u64 elr, u64 sas, u64 srt, u64 sf) {
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, vec);
  expect_eq("ESR (ISV and syndrome masked)", trap.esr & ESR_DABT_MASK, ESR(ec, (wnr ? ISS_WNR : 0) | dfsc));
  expect_eq("FAR", trap.far, far);
  expect_eq("ELR", trap.elr, elr);
  if (trap.esr & ESR_ISV) {
    expect_eq("ESR.SAS", (trap.esr >> 22) & 3, sas);
    expect_eq("ESR.SRT", (trap.esr >> 16) & 31, srt);
    expect_eq("ESR.SF", (trap.esr >> 15) & 1, sf);
  }
}
