"""Records written by a gcc program, and the values gcc's own reader of them prints.

The program writes ``RECORDS`` records of ``struct rec`` (a bit field of each kind, an enum, an
array, NaN gains), then reads the file back with ``fread`` and prints every field as C decodes
it: the values every export and statistic of these records is checked against."""

from __future__ import annotations

import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest

REC_HEADER = r"""
#include <stdint.h>
enum mode { IDLE = 0, RUN = 1, FAULT = 7 };
struct rec {
    uint32_t ts;
    int16_t ch[3];
    float gain;
    uint8_t flags:3;
    uint8_t level:4;
    int16_t delta:5;
    enum mode m;
    double when;
};
"""

REC_PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rec.h"
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  FILE *f = fopen("rec.bin", "wb");
  for (int i = 0; i < n; i++) {
    struct rec r;
    memset(&r, 0, sizeof r);
    r.ts = 1000u * (unsigned) i;
    r.ch[0] = (int16_t) -i; r.ch[1] = (int16_t) ((i * 7) % 300); r.ch[2] = (int16_t) (i % 2 ? 32767 : -32768);
    r.gain = i % 97 == 0 ? NAN : 0.25f * (float) (i % 13) - 1.0f;
    r.flags = i % 8; r.level = (i * 3) % 16; r.delta = (i % 32) - 16;
    r.m = i % 3 == 0 ? FAULT : (i % 3 == 1 ? RUN : IDLE);
    r.when = i * 1e-3;
    fwrite(&r, sizeof r, 1, f);
  }
  fclose(f);
  f = fopen("rec.bin", "rb");
  FILE *out = fopen("rec.txt", "w");
  struct rec r;
  while (fread(&r, sizeof r, 1, f) == 1)
    fprintf(out, "%u %d %d %d %.9g %u %u %d %d %.17g\n", r.ts, r.ch[0], r.ch[1], r.ch[2], (double) r.gain,
            (unsigned) r.flags, (unsigned) r.level, (int) r.delta, (int) r.m, r.when);
  fclose(f);
  fclose(out);
  printf("%zu\n", sizeof(struct rec));
  return 0;
}
"""

#: Records the gcc program writes.
RECORDS = 20_000


@pytest.fixture(scope="session")
def gcc_records(tmp_path_factory):
    """``folder`` (``rec.bin``, ``rec.h``), ``size`` (gcc's ``sizeof``), ``values`` (what gcc's
    reader printed, by field: ``ch`` of shape (n, 3); ``texts`` its lines' words), ``header``
    (the C text) and ``count`` (the records)."""
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc (apt-get install -y gcc)")
    folder = tmp_path_factory.mktemp("gcc_records")
    (folder / "rec.h").write_text(REC_HEADER)
    (folder / "w.c").write_text(REC_PROGRAM)
    subprocess.run(["gcc", "-std=c11", "-o", str(folder / "w"), str(folder / "w.c"), "-lm"], check=True, cwd=folder)
    size = int(subprocess.run([str(folder / "w"), str(RECORDS)], check=True, cwd=folder, capture_output=True,
                              text=True).stdout)
    rows = [line.split() for line in (folder / "rec.txt").read_text().splitlines()]
    column = lambda k, kind: np.array([kind(row[k]) for row in rows])
    values = {
        "ts": column(0, int).astype(np.uint32),
        "ch": np.stack([column(k, int) for k in (1, 2, 3)], axis=1).astype(np.int16),
        "gain": column(4, float).astype(np.float32),
        "flags": column(5, int).astype(np.uint8),
        "level": column(6, int).astype(np.uint8),
        "delta": column(7, int).astype(np.int8),
        "m": column(8, int).astype(np.int32),
        "when": column(9, float),
        "texts": rows,
    }
    return SimpleNamespace(folder=folder, size=size, values=values, header=REC_HEADER, count=RECORDS)
