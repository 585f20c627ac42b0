"""A record layout checked against a file: real records written by numpy (and by a program gcc
compiled) are judged plausible at their header; the same layout shifted, with fields swapped or
a float read as an integer is not, and the reasons name the field; the header offset where the
records start is proposed; bad inputs get an answer or a clear refusal, reading a bounded sample.

The records are a sensor log: a millisecond clock (u32, steps of 9 to 11), four int16 channels
(sines of amplitude 1500 and period 100 records), a float32 gain (1 +- 0.25, period 400
records), an enum mode and a byte of flags, 24 bytes with C's alignment (3 bytes of padding).
Every piece of the sample holds at least 512 consecutive records, so the channels' and the
gain's extremes in the sample are the writer's own."""

from __future__ import annotations

import shutil
import struct
import subprocess

import numpy as np
import pytest

from core.errors import CoreError
from core.files.sources import FileSource, open_source
from core.guess import check_layout
from core.guess.record_check import PLAUSIBLE_SCORE
from core.guess.sample import MAX_CHECKED_RECORD, RECORD_READ_BYTES
from core.records.c_decl import parse_c_layout
from core.records.field_list import parse_field_list, parse_numpy_layout
from core.text.figures import format_fit
from core.text.number_format import format_value

SENSOR_C = """
enum mode { IDLE = 0, RUN = 1, FAULT = 7 };
struct sample { uint32_t ts; int16_t ch[4]; float gain; enum mode mode; uint8_t flags; };
"""
DTYPE = np.dtype({"names": ["ts", "ch", "gain", "mode", "flags"],
                  "formats": ["<u4", ("<i2", (4,)), "<f4", "<i4", "u1"], "offsets": [0, 4, 12, 16, 20], "itemsize": 24})


def sensor_log(count: int, seed: int = 1, dtype: np.dtype = DTYPE) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(count)
    data = np.zeros(count, dtype)
    data["ts"] = 1_000_000 + np.cumsum(rng.integers(9, 12, count))
    for k in range(4):
        data["ch"][:, k] = np.round(1500 * np.sin(2 * np.pi * t / 100 + k))
    data["gain"] = 1.0 + 0.25 * np.sin(2 * np.pi * t / 400)
    data["mode"] = rng.choice([0, 1, 7], count, p=[0.3, 0.6, 0.1])
    data["flags"] = rng.integers(0, 4, count) | (rng.random(count) < 0.1) * 8
    return data


def write_log(path, data: np.ndarray, header: bytes) -> str:
    path.write_bytes(header + data.tobytes())
    return str(path)


def check(path, layout, header=0):
    with open_source(path) as source:
        return check_layout(source, layout, header)


def field(result, name):
    return next(f for f in result.fields if f.name == name)


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    """20,000 records after a 12-byte header (a magic, a version and the record count)."""
    data = sensor_log(20_000)
    path = write_log(tmp_path_factory.mktemp("log") / "sensors.bin", data, b"LOG1" + struct.pack("<II", 1, 20_000))
    return path, data


@pytest.fixture(scope="module")
def layout():
    return parse_c_layout(SENSOR_C, "sample")


def test_the_right_layout_at_the_right_header_is_plausible(log, layout):
    path, data = log
    result = check(path, layout, 12)
    assert result.plausible and result.score >= 0.95
    assert result.verdict == f"the layout is plausible from byte 12 (score {format_fit(result.score)})"
    assert [f.name for f in result.fields] == ["ts", "ch", "gain", "mode", "flags", "(padding @21)"]
    assert [f.kind for f in result.fields] == ["counter", "integer", "float", "enum", "codes", "padding"]
    assert all(f.score >= 0.9 for f in result.fields)
    n = result.sampled_records
    assert 4096 <= n <= 4096 + 4096 // 24 + 8  # the sample: 8 pieces of 512 records, the first with the head
    assert field(result, "ts").reasons == (f"ts never decreases over {n:,} records (steps of 9 to 11): a counter or "
                                           "timestamp",)
    ch_low, ch_high = int(data["ch"].min()), int(data["ch"].max())
    assert (ch_low, ch_high) == (-1500, 1500)
    assert field(result, "ch").reasons[0].startswith(
        "ch: values from -1500 to 1500 (about 12 of 16 bits used); neighbouring records are close (smoothness 0.9")
    gain_low, gain_high = (format_value(v, np.float32) for v in (data["gain"].min(), data["gain"].max()))
    assert (gain_low, gain_high) == ("0.75", "1.25")
    assert field(result, "gain").reasons == ("gain: plausible floats from 0.75 to 1.25 (exponents span 2 of 256 "
                                             "values)",)
    assert field(result, "mode").reasons[0].startswith("mode: every value is a name of enum mode (RUN 6")
    assert field(result, "flags").reasons == ("flags takes 8 distinct values (0, 1, 2, 3, 8, 9, ...)",)
    assert field(result, "(padding @21)").reasons == (f"the 3 bytes of padding @21 are 0x00 in every one of the {n:,} "
                                                      "records",)
    assert result.records == 20_000 and result.trailing_bytes == 0
    assert result.reasons[0] == "480,012 bytes: 20,000 records of 24 bytes after a 12-byte header"
    assert result.reasons[1] == f"sampled {n:,} records from 8 places ({result.bytes_read:,} bytes read)"
    assert "the bytes repeat every 24 bytes, as the layout's records" in result.reasons
    best = result.best_header
    assert (best.offset, best.records, best.trailing_bytes) == (12, 20_000, 0)
    assert result.headers[1].score < 0.5
    assert result.proposal == (f"records start at byte 12 as given (score {format_fit(best.score)}; next best "
                               f"at {result.headers[1].offset}: {format_fit(result.headers[1].score)})")


@pytest.mark.parametrize("shift", [-3, -2, -1, 1, 2, 3])
def test_the_layout_shifted_by_a_few_bytes_is_implausible(log, layout, shift):
    path, _data = log
    result = check(path, layout, 12 + shift)
    assert not result.plausible and result.score < 0.3
    assert result.verdict.startswith(f"the layout does not fit the records from byte {12 + shift} (score ")
    worst = min((f for f in result.fields if f.weight >= 0.5), key=lambda f: f.score)
    assert worst.reasons[0] in result.verdict and worst.name in ("gain", "mode")
    gain = field(result, "gain")
    assert gain.score < 0.2
    assert gain.reasons[0].startswith("gain: ") and gain.reasons[0].endswith("misaligned?")
    assert "NaN, infinite, subnormal or beyond 1e30" in gain.reasons[0]
    assert result.best_header.offset == 12
    assert result.proposal.startswith("records start at byte 12 (score 0.9")


def test_fields_in_the_wrong_order_are_implausible(log):
    path, _data = log
    swapped = parse_field_list("ts:u32, gain:f32, ch:i16[4], mode:i32, flags:u8, pad:3")
    result = check(path, swapped, 12)
    assert not result.plausible and result.score < 0.3
    gain = field(result, "gain")
    assert gain.score == 0.0  # the channels' int16 bits: tiny, huge or NaN as floats
    assert gain.reasons[0] == "gain: 100% of the values are NaN, infinite, subnormal or beyond 1e30: misaligned?"
    assert result.verdict == (f"the layout does not fit the records from byte 12 (score "
                              f"{format_fit(result.score)}): {gain.reasons[0]}")


def test_a_float_read_as_an_integer_is_implausible(log):
    path, _data = log
    as_int = parse_field_list("ts:u32, ch:i16[4], gain:i32, mode:i32, flags:u8, pad:3")
    result = check(path, as_int, 12)
    assert not result.plausible and result.score < 0.5
    gain = field(result, "gain")
    assert gain.score == 0.1
    assert gain.reasons == ("gain: 100% of the values read as float32 would lie between 0.75 and 1.25: a float32 "
                            "field read as int32?",)
    assert gain.reasons[0] in result.verdict


def test_a_layout_of_the_wrong_size_says_what_the_bytes_repeat_at(log):
    path, _data = log
    short = parse_field_list("ts:u32, ch:i16[4], gain:f32, mode:i32")  # 20 bytes: flags and padding forgotten
    result = check(path, short, 12)
    assert not result.plausible
    assert "the bytes repeat every 24 bytes, the layout is 20" in result.reasons
    assert result.reasons[0] == "480,012 bytes: 24,000 records of 20 bytes after a 12-byte header"


def test_records_after_an_unknown_12_byte_header_are_found(log, layout):
    path, _data = log
    result = check(path, layout, 0)
    assert not result.plausible and result.score < 0.2
    assert result.trailing_bytes == 12 and result.records == 20_000  # 480,012 = 20,000 x 24 + 12
    best = result.best_header
    assert best.offset == 12 and best.score >= 0.95 and best.trailing_bytes == 0
    here = next(h for h in result.headers if h.offset == 0)
    assert here.trailing_bytes == 12 and here.score == result.score
    assert here.text == f"at 0: {format_fit(here.score)} (12 trailing bytes)"
    assert result.proposal == (f"records start at byte 12 (score {format_fit(best.score)}; at 0: "
                               f"{format_fit(result.score)})")


@pytest.mark.parametrize("kind", ["magic and zeros", "random bytes"])
def test_records_after_an_unknown_64_byte_header_are_found(tmp_path, layout, kind):
    data = sensor_log(20_000, seed=7)
    header = (b"SLOG" + struct.pack("<HHI", 1, 24, 20_000)).ljust(64, b"\0") if kind == "magic and zeros" else \
        np.random.default_rng(5).integers(0, 256, 64, dtype=np.uint8).tobytes()
    path = write_log(tmp_path / "h64.bin", data, header)
    result = check(path, layout, 0)
    assert not result.plausible
    best = result.best_header
    assert best.offset == 64 and best.score >= 0.95 and best.trailing_bytes == 0 and best.records == 20_000
    # 64 = 16 + 2 x 24: from byte 16 the records line up, but the first two are the header's bytes
    phase = next(h for h in result.headers if h.offset == 16)
    assert phase.note == "the first 2 records from byte 16 do not read like the rest: a header of 64 bytes?"
    assert phase.score < best.score
    assert result.proposal.startswith("records start at byte 64 (score ")


def test_packed_records_after_a_64_byte_header(tmp_path):
    packed = np.dtype([("ts", "<u4"), ("ch", "<i2", (4,)), ("gain", "<f4"), ("mode", "u1"), ("flags", "u1")])
    data = sensor_log(20_000, seed=3, dtype=packed)
    path = write_log(tmp_path / "packed.bin", data, b"PK01".ljust(64, b"\0"))
    layout = parse_numpy_layout(str(packed.descr))
    assert layout.itemsize == 18
    result = check(path, layout, 0)
    assert not result.plausible and result.header == 0
    assert result.best_header.offset == 64 and result.best_header.score >= 0.95
    assert result.best_header.trailing_bytes == 0  # 64 + 20,000 x 18: from byte 0, 10 bytes are left over
    assert result.trailing_bytes == 10


def test_trailing_bytes_are_said(tmp_path, layout):
    path = tmp_path / "cut.bin"
    path.write_bytes(sensor_log(1000).tobytes() + b"\x01\x02\x03\x04\x05")
    result = check(str(path), layout)
    assert result.plausible and result.trailing_bytes == 5 and result.records == 1000
    assert result.reasons[0] == "24,005 bytes: 1,000 records of 24 bytes after a 0-byte header, 5 trailing bytes"
    assert result.reasons[1] == "sampled 1,000 records from 1 place (24,005 bytes read)"
    assert result.best_header.offset == 0 and result.best_header.trailing_bytes == 5


def test_big_endian_records_need_a_big_endian_layout(tmp_path):
    big = DTYPE.newbyteorder(">")
    path = tmp_path / "be.bin"
    path.write_bytes(sensor_log(5000, dtype=big).tobytes())
    text = "ts:u32, ch:i16[4], gain:f32, mode:u32, flags:u8, pad:3"
    assert check(str(path), parse_field_list(text, little_endian=False)).plausible
    little = check(str(path), parse_field_list(text))
    assert not little.plausible
    assert field(little, "gain").score < 0.3


# -- a C struct written by a program gcc compiled ---------------------------------------------
PACKET_H = r"""
#include <stdint.h>
#include <stdbool.h>
/* one packet of a data logger */
enum state { IDLE = 0, ARMED = 1, RUNNING = 2, FAULT = 7 };
struct packet {
    uint32_t ts;          /* milliseconds since start */
    int16_t ch[4];        /* ADC channels */
    float gain;
    enum state state;
    bool ok;
    uint8_t chan:3;       /* the channel that triggered */
    uint8_t level:4;
    uint16_t seq;
    double when;          /* seconds since the epoch */
    char tag[6];
};
"""

PACKET_WRITER = r"""
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "packet.h"
int main(void) {
  int n = 20000, low = 0, high = 0;
  FILE *f = fopen("packets.bin", "wb");
  char header[12] = "PKT1";
  unsigned int count = n;
  memcpy(header + 8, &count, 4);
  fwrite(header, 1, 12, f);
  for (int i = 0; i < n; i++) {
    struct packet p;
    memset(&p, 0, sizeof p);
    p.ts = 5000 + 10 * i + i % 3;
    for (int k = 0; k < 4; k++) {
      p.ch[k] = (int16_t)lround(1200.0 * sin(2 * M_PI * i / 100.0 + k));
      if (p.ch[k] < low) low = p.ch[k];
      if (p.ch[k] > high) high = p.ch[k];
    }
    p.gain = 1.0f + 0.25f * (float)sin(2 * M_PI * i / 400.0);
    p.state = (i % 10 == 9) ? FAULT : (i % 3 == 0 ? ARMED : RUNNING);
    p.ok = i % 5 != 0;
    p.chan = i % 8;
    p.level = (i / 100) % 16;
    p.seq = (uint16_t)i;
    p.when = 1.7e9 + i * 0.01;
    snprintf(p.tag, sizeof p.tag, "s%04d", i % 10000);
    fwrite(&p, sizeof p, 1, f);
  }
  fclose(f);
  printf("%zu %d %d\n", sizeof(struct packet), low, high);
  return 0;
}
"""


@pytest.fixture(scope="module")
def packets(tmp_path_factory):
    """The packets gcc's program wrote after its 12-byte header, and what it printed: the record
    size and the channels' extremes."""
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc (apt-get install -y gcc)")
    folder = tmp_path_factory.mktemp("gcc")
    (folder / "packet.h").write_text(PACKET_H)
    (folder / "writer.c").write_text(PACKET_WRITER)
    subprocess.run(["gcc", "-std=c11", "-D_DEFAULT_SOURCE", "-o", str(folder / "writer"), str(folder / "writer.c"),
                    "-lm"], check=True, cwd=folder)
    printed = subprocess.run([str(folder / "writer")], check=True, cwd=folder, capture_output=True, text=True).stdout
    size, low, high = (int(word) for word in printed.split())
    return str(folder / "packets.bin"), size, low, high


def test_a_c_struct_written_by_gcc_is_plausible_after_its_header(packets):
    path, size, low, high = packets
    layout = parse_c_layout(PACKET_H, "packet")
    assert layout.itemsize == size == 40
    result = check(path, layout, 12)
    assert result.plausible and result.score >= 0.95
    n = result.sampled_records
    kinds = {f.name: f.kind for f in result.fields}
    assert kinds == {"ts": "counter", "ch": "integer", "gain": "float", "state": "enum", "ok": "bool", "chan": "bits",
                     "level": "bits", "seq": "counter", "when": "float", "tag": "text", "(padding @38)": "padding",
                     "(unused bits @21)": "padding"}
    assert field(result, "ts").reasons == (f"ts never decreases over {n:,} records (steps of 8 to 11): a counter or "
                                           "timestamp",)  # 10 i + i % 3: steps of 11, 11 and 8
    assert field(result, "seq").reasons == (f"seq never decreases over {n:,} records (steps of 1 to 1): a counter or "
                                            "timestamp",)
    assert field(result, "ch").reasons[0].startswith(f"ch: values from {low} to {high} (about 11 of 16 bits used)")
    assert field(result, "state").reasons[0].startswith("state: every value is a name of enum state (RUNNING 60")
    ok = field(result, "ok").reasons[0]  # i % 5 != 0: 80% true
    assert ok.startswith("ok: every value is 0 or 1 (1 in ") and ok.endswith("% of the records)")
    assert 79 <= float(ok.split("(1 in ")[1].split("%")[0]) <= 81
    assert field(result, "tag").reasons == ("tag: text (100% printable or NUL bytes), e.g. 's0000'",)
    assert field(result, "(padding @38)").reasons == (f"the 2 bytes of padding @38 are 0x00 in every one of the "
                                                      f"{n:,} records",)
    assert field(result, "(unused bits @21)").reasons == ("the 1 bit @21 that no bit field uses is 0 in 100% of the "
                                                          "records",)
    unknown = check(path, layout, 0)
    assert not unknown.plausible and unknown.best_header.offset == 12
    assert unknown.proposal.startswith("records start at byte 12 (score 0.9")


# -- bad inputs ------------------------------------------------------------------------------------
def test_an_empty_file_has_no_records_to_check(tmp_path, layout):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    result = check(str(path), layout)
    assert not result.plausible and result.score == 0.0
    assert result.verdict == "the file is empty: there are no records to check"
    assert result.fields == () and result.headers == () and result.proposal == ""
    assert result.bytes_read == 0 and result.reasons == ("0 bytes", result.verdict)


def test_a_file_smaller_than_one_record(tmp_path, layout):
    path = tmp_path / "short.bin"
    path.write_bytes(bytes(range(10)))
    result = check(str(path), layout)
    assert not result.plausible and result.fields == () and result.trailing_bytes == 10
    assert result.verdict == ("the file's 10 bytes are fewer than one record of 24 bytes: there are no records to "
                              "check (check the layout)")


def test_one_record_is_too_few_to_judge(tmp_path, layout):
    data = sensor_log(1)
    path = tmp_path / "one.bin"
    path.write_bytes(data.tobytes())
    result = check(str(path), layout)
    assert not result.plausible and result.sampled_records == 1 and result.records == 1
    assert result.verdict.startswith("too few records to judge the layout from byte 0: 1 (at least 16 are needed; "
                                     "score ")
    assert field(result, "ts").reasons == (f"ts is {int(data['ts'][0])} in the one record",)
    assert [h.offset for h in result.headers] == [0]  # no other offset holds a whole record
    assert result.proposal.startswith("no header offset makes the layout plausible (best: at byte 0, score ")


def test_a_header_past_the_end_is_refused(tmp_path, layout):
    path = tmp_path / "one.bin"
    path.write_bytes(sensor_log(2).tobytes())
    with pytest.raises(CoreError, match=r"--offset 49 is past the end of the file \(48 bytes\)") as caught:
        check(str(path), layout, 49)
    assert caught.value.field == "offset"
    at_end = check(str(path), layout, 48)
    assert at_end.verdict == "no whole record after the 48-byte header: there are no records to check"
    assert at_end.best_header.offset == 0


def test_a_header_that_leaves_no_record_gets_a_proposal(tmp_path, layout):
    path = tmp_path / "log.bin"
    path.write_bytes(sensor_log(1000).tobytes())
    result = check(str(path), layout, 24_000)
    assert not result.plausible and result.fields == () and result.records == 0
    best = result.best_header
    assert best.offset == 0 and best.records == 1000
    assert result.proposal == f"records start at byte 0 (score {format_fit(best.score)}; no whole record from byte 24,000)"
    assert [h.offset for h in result.headers][-1] == 24_000 and result.headers[-1].text == "at 24,000: 0.00"


def test_a_layout_of_only_padding_is_refused(tmp_path):
    path = tmp_path / "zeros.bin"
    path.write_bytes(bytes(800))
    only_padding = parse_c_layout("struct s { uint8_t pad[4]; uint32_t reserved; };")
    with pytest.raises(CoreError, match=r"the layout has only padding \(pad, reserved\): there are no values to "
                                        r"check \(name the fields that hold data\)") as caught:
        check(str(path), only_padding)
    assert caught.value.field == "fields"
    with pytest.raises(CoreError, match="the field list has only padding"):
        parse_field_list("pad:8")


def test_zeros_fit_every_layout_so_they_tell_nothing(tmp_path, layout):
    path = tmp_path / "zeros.bin"
    path.write_bytes(bytes(24 * 10_000))
    result = check(str(path), layout)
    assert not result.plausible and result.score == 0.5
    assert all(f.kind in ("constant", "padding") for f in result.fields)
    assert field(result, "mode").reasons[0].startswith("mode is IDLE (0) in every one of the ")
    assert result.verdict == ("the values cannot tell whether the layout fits from byte 0: every field is constant, "
                              "a few bits or padding (score 0.50)")


def test_records_too_large_to_sample_are_refused(tmp_path):
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.truncate(4 * MAX_CHECKED_RECORD)
    huge = parse_field_list(f"a:u8, size:{MAX_CHECKED_RECORD + 1}")
    with open_source(str(path)) as source, pytest.raises(CoreError, match="too large to check from a sample") as caught:
        check_layout(source, huge)
    assert caught.value.field == "fields"


def test_a_huge_sparse_file_is_checked_from_a_bounded_sample(tmp_path, layout, monkeypatch):
    path = tmp_path / "huge.bin"
    data = sensor_log(300_000).tobytes()
    with open(path, "wb") as f:
        f.truncate(8 << 30)
        f.seek((4 << 30) // 24 * 24 - len(data) // 48 * 24)  # records in the middle, on the record grid
        f.write(data)
    read = []
    original = FileSource.bytes_at

    def counted(self, index, offset, nbytes):
        got = original(self, index, offset, nbytes)
        read.append(len(got))
        return got

    monkeypatch.setattr(FileSource, "bytes_at", counted)
    result = check(str(path), layout)
    assert sum(read) == result.bytes_read <= RECORD_READ_BYTES
    assert result.records == (8 << 30) // 24 and result.trailing_bytes == (8 << 30) % 24
    assert result.reasons[0] == f"8,589,934,592 bytes: {(8 << 30) // 24:,} records of 24 bytes after a 0-byte header, " \
                                f"{(8 << 30) % 24} trailing bytes"
    # The sample's eight places (the start, then every seventh of the file) are holes: zeros.
    assert result.verdict.startswith("the values cannot tell whether the layout fits from byte 0")
    assert result.score < PLAUSIBLE_SCORE
