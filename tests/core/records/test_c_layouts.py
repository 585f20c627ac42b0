"""Record layouts from C declarations, checked against gcc itself: a C program (compiled by the
test from the same header) prints sizeof/offsetof and writes records; the layout read by the
tool must give the same offsets and decode the same values, bit fields and enums included."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from core.errors import CoreError
from core.records.c_decl import parse_c_layout

HEADER = r"""
#include <stdint.h>
/* a sensor sample */
enum mode { IDLE = 0, RUN = 1, FAULT = 7 };
struct vec { float x, y, z; };
struct sample {
    uint32_t ts;          // timestamp
    int16_t ch[4];
    float gain;
    uint8_t flags:3;
    uint8_t level:4;
    int16_t delta:5;
    struct vec acc;
    enum mode m;
    double when;
    char tag;
    uint64_t big;
    struct { uint16_t a; uint8_t b; } inner;
    union { uint32_t word; uint8_t bytes[4]; } u;
    struct vec pts[2];
};
#pragma pack(push, 1)
struct packed1 { uint8_t a; uint32_t b; uint16_t c; };
#pragma pack(pop)
#pragma pack(2)
struct packed2 { uint8_t a; uint32_t b; double c; };
#pragma pack()
struct __attribute__((packed)) gpacked { uint8_t a; uint32_t b; uint8_t f:3; uint16_t g:9; };
struct aligned { uint8_t a; _Alignas(16) uint32_t b; };
typedef struct { unsigned long long stamp; short s; } stamped_t;
"""

WRITER = r"""
#include <stdio.h>
#include <stddef.h>
#include "s.h"
#define SHOW(T, F) printf(#T "." #F " %zu\n", offsetof(struct T, F))
int main(void) {
  printf("sample %zu\npacked1 %zu\npacked2 %zu\ngpacked %zu\naligned %zu\nstamped_t %zu\n", sizeof(struct sample),
         sizeof(struct packed1), sizeof(struct packed2), sizeof(struct gpacked), sizeof(struct aligned), sizeof(stamped_t));
  SHOW(sample, ts); SHOW(sample, ch); SHOW(sample, gain); SHOW(sample, acc); SHOW(sample, m); SHOW(sample, when);
  SHOW(sample, tag); SHOW(sample, big); SHOW(sample, inner); SHOW(sample, u); SHOW(sample, pts);
  SHOW(packed1, b); SHOW(packed1, c); SHOW(packed2, b); SHOW(packed2, c); SHOW(gpacked, b); SHOW(aligned, b);
  struct sample r[3] = {0};
  for (int i = 0; i < 3; i++) {
    r[i].ts = 1000 + i; r[i].ch[2] = -7 * i; r[i].gain = 0.5f * i; r[i].flags = 5 - i; r[i].level = 9 + i;
    r[i].delta = -3 + 4 * i; r[i].acc.y = 2.5f; r[i].m = i == 2 ? FAULT : RUN; r[i].tag = 'a' + i;
    r[i].big = 1ULL << 40; r[i].inner.b = 200; r[i].u.word = 0x01020304; r[i].pts[1].z = -1.0f * i;
  }
  FILE *f = fopen("sample.bin", "wb"); fwrite(r, sizeof r, 1, f); fclose(f);
  struct gpacked g[2] = {{1, 0xdeadbeef, 6, 300}, {2, 7, 1, 511}};
  f = fopen("gpacked.bin", "wb"); fwrite(g, sizeof g, 1, f); fclose(f);
  return 0;
}
"""


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """gcc's sizes and offsets, and the records its program wrote."""
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc (apt-get install -y gcc)")
    folder = tmp_path_factory.mktemp("gcc")
    (folder / "s.h").write_text(HEADER)
    (folder / "w.c").write_text(WRITER)
    subprocess.run(["gcc", "-std=c11", "-o", str(folder / "w"), str(folder / "w.c")], check=True, cwd=folder)
    out = subprocess.run([str(folder / "w")], check=True, cwd=folder, capture_output=True, text=True).stdout
    sizes = dict(line.rsplit(" ", 1) for line in out.splitlines())
    return {k: int(v) for k, v in sizes.items()}, folder


def test_sizes_and_offsets_are_gccs(written):
    sizes, _folder = written
    for name in ("sample", "packed1", "packed2", "gpacked", "aligned", "stamped_t"):
        assert parse_c_layout(HEADER, name).itemsize == sizes[name], name
    for key, offset in sizes.items():
        if "." not in key:
            continue
        struct, member = key.split(".")
        layout = parse_c_layout(HEADER, struct)
        first = min(f.offset for f in layout.fields if f.name == member or f.name.startswith((member + ".", member + "[")))
        assert first == offset, key


def test_records_written_by_gcc_decode_field_by_field(written):
    _sizes, folder = written
    layout = parse_c_layout(HEADER, "sample")
    records = layout.records(np.fromfile(folder / "sample.bin", np.uint8))
    assert records.shape == (3,)
    columns = {c.name: c for c in layout.columns()}
    assert "ch[3]" in columns and "pts[1].z" in columns and "u.bytes[0]" in columns
    value = lambda name: layout.values(records, columns[name]).tolist()
    assert value("ts") == [1000, 1001, 1002]
    assert value("ch[2]") == [0, -7, -14]
    assert value("gain") == [0.0, 0.5, 1.0]
    assert value("flags") == [5, 4, 3] and value("level") == [9, 10, 11]
    assert value("delta") == [-3, 1, 5]  # a signed 5-bit field, sign-extended
    assert value("acc.y") == [2.5] * 3 and value("pts[1].z") == [0.0, -1.0, -2.0]
    assert value("m") == [1, 1, 7] and layout.field_named("m").enum == {0: "IDLE", 1: "RUN", 7: "FAULT"}
    assert value("tag") == [97, 98, 99] and value("big") == [1 << 40] * 3
    assert value("inner.b") == [200] * 3 and value("u.word") == [0x01020304] * 3 and value("u.bytes[0]") == [4] * 3
    packed = parse_c_layout(HEADER, "gpacked")
    records = packed.records(np.fromfile(folder / "gpacked.bin", np.uint8))
    columns = {c.name: c for c in packed.columns()}
    assert packed.values(records, columns["b"]).tolist() == [0xDEADBEEF, 7]
    assert packed.values(records, columns["f"]).tolist() == [6, 1]
    assert packed.values(records, columns["g"]).tolist() == [300, 511]  # crosses a byte boundary when packed


def test_the_abis_differ_where_c_says_they_do():
    text = "struct t { char c; long l; double d; void *p; };"
    assert parse_c_layout(text, "t", abi="x86-64").itemsize == 32
    arm = parse_c_layout(text, "t", abi="arm-eabi")  # long and pointers 4 bytes, double aligned to 8
    assert [(f.name, f.offset, f.dtype) for f in arm.fields] == [("c", 0, "int8"), ("l", 4, "int32"),
                                                                 ("d", 8, "float64"), ("p", 16, "uint32")]
    assert arm.itemsize == 24
    assert parse_c_layout(text, "t", abi="packed").itemsize == 1 + 8 + 8 + 8


@pytest.mark.parametrize(("text", "name", "said"), [
    ("struct s { int a; int b }", "s", r"does not parse at line 1, column \d+"),
    ("struct s { mystery_t a; };", "s", r"'mystery_t' \(line 1\) is a type name it does not define"),
    ("typedef struct s s; struct s { int a; s inner; };", "s", "contains itself"),
    ("struct s { int n; float data[]; };", "s", "flexible array member"),
    ("struct s { int a[0]; };", "s", "array of 0 elements"),
    ("struct s { double a[1099511627776]; };", "s", "more than the 1 GiB"),
    ("struct s { uint8_t a:9; };", "s", "9 bits wide, wider than its type"),
    ("struct s { float f:3; };", "s", "not of an integer type"),
    ("struct s { long double x; };", "s", "long double"),
    ("struct s { int a[N]; };", "s", "N, which the text does not define"),
    ("struct s { int a; };", "other", r"defines no struct 'other' \(it defines: s\)"),
])
def test_bad_c_text_is_refused_with_its_reason(text, name, said):
    with pytest.raises(CoreError, match=said):
        parse_c_layout(text, name)


def test_includes_and_defines_are_never_followed_nor_expanded():
    layout = parse_c_layout('#include "/etc/passwd"\n#define SIZE 4\nstruct s { uint16_t v[2]; };', "s")
    assert layout.itemsize == 4
    assert layout.notes == ('line 1: #include "/etc/passwd" not followed', "line 2: #define not expanded")
