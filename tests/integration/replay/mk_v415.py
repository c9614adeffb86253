#!/usr/bin/env python3
"""Write a small trace.dat v6 as a 4.15.0 kernel would have it: fixed
comm[16] fields, `success` in sched_wakeup, and prev_state shifted by one bit
(running reads 0x1, S reads 0x2).  No 4.15 machine is at hand, so the file
is built byte by byte after trace-cmd.dat.v6(5) and the ring-buffer page
layout of its header_page; trace-cmd report reads it (the test checks)."""
import struct, sys
import sys as _s; _s.flags.optimize and _s.exit("FAIL: python -O would strip this check's asserts")

HEADER_PAGE = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
               b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
               b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
               b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")
HEADER_EVENT = (b"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
                b"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                b"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")
COMMON = (b"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          b"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          b"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          b"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
SWITCH = (b"name: sched_switch\nID: 300\nformat:\n" + COMMON +
          b"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
          b"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
          b"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
          b"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
          b"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"
          b"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
          b"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
          b"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", "
          b"REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) - 1)) ? "
          b"__print_flags(REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) - 1), \"|\", "
          b"{ 0x0001, \"S\" }, { 0x0002, \"D\" }, { 0x0004, \"T\" }, { 0x0008, \"t\" }, { 0x0010, \"X\" }, { 0x0020, \"Z\" }, { 0x0040, \"P\" }, { 0x0080, \"I\" }) : \"R\", "
          b"REC->prev_state & (((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) ? \"+\" : \"\", "
          b"REC->next_comm, REC->next_pid, REC->next_prio\n")
WAKEUP = (b"name: sched_wakeup\nID: 301\nformat:\n" + COMMON +
          b"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
          b"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
          b"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
          b"\tfield:int success;\toffset:32;\tsize:4;\tsigned:1;\n"
          b"\tfield:int target_cpu;\toffset:36;\tsize:4;\tsigned:1;\n\n"
          b"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu\n")


def comm(s):
    return s.encode().ljust(16, b"\0")


def switch(pid, prev, prev_state, nxt, next_pid):
    return struct.pack("<HBBi16sii q16sii", 300, 0, 0, pid, comm(prev), pid, 120, prev_state,
                       comm(nxt), next_pid, 120)


def wakeup(waker, pid, name, cpu):
    return struct.pack("<HBBi16siiii", 301, 0, 0, waker, comm(name), pid, 120, 1, cpu)


def page(t0, events):
    """One ring-buffer page: timestamp, commit, then 4-byte-aligned events."""
    data = b""
    for delta, payload in events:
        if len(payload) % 4 or len(payload) > 112:
            raise ValueError(f"event payload of {len(payload)} bytes: not 4-aligned or over 112")
        data += struct.pack("<I", (delta << 5) | (len(payload) // 4)) + payload
    return (struct.pack("<Qq", t0, len(data)) + data).ljust(4096, b"\0")


# CPU 0, kernel 4.15.0: prev_state 0x2 is S (blocked), 0x1 is running (preempted-like).
US = 1000
events = [
    (0, switch(0, "swapper/0", 0, "a", 100)),           # a runs
    (10 * US, wakeup(100, 101, "b", 0)),                 # a wakes b onto CPU 0
    (10 * US, switch(100, "a", 0x1, "b", 101)),          # a still runnable (0x1 = R on 4.15.0)
    (10 * US, switch(101, "b", 0x2, "a", 100)),          # b sleeps (0x2 = S), a was waiting: no newidle
    (10 * US, switch(100, "a", 0x2, "swapper/0", 0)),    # a sleeps, queue empty: a newidle point
    (500 * US, wakeup(0, 100, "a", 0)),
    (10 * US, switch(0, "swapper/0", 0, "a", 100)),
    (10 * US, switch(100, "a", 0x2, "swapper/0", 0)),    # second newidle point
]
pages = page(1_000_000_000, events)

out = bytearray()
out += b"\x17\x08\x44tracing" + b"6\0" + bytes([0, 8]) + struct.pack("<I", 4096)
out += b"header_page\0" + struct.pack("<Q", len(HEADER_PAGE)) + HEADER_PAGE
out += b"header_event\0" + struct.pack("<Q", len(HEADER_EVENT)) + HEADER_EVENT
out += struct.pack("<I", 0)                                   # ftrace formats
out += struct.pack("<I", 1) + b"sched\0" + struct.pack("<I", 2)
for fmt in (SWITCH, WAKEUP):
    out += struct.pack("<Q", len(fmt)) + fmt
out += struct.pack("<I", 0) + struct.pack("<I", 0)            # kallsyms, printk
cmdlines = b"100 a\n101 b\n"
out += struct.pack("<Q", len(cmdlines)) + cmdlines
out += struct.pack("<I", 1)                                   # CPUs
uname = b"Linux host 4.15.0 x86_64\0"
out += b"options  \0" + struct.pack("<HI", 5, len(uname)) + uname + struct.pack("<H", 0)
out += b"flyrecord\0"
data_off = (len(out) + 16 + 4095) // 4096 * 4096
out += struct.pack("<QQ", data_off, len(pages))
out = out.ljust(data_off, b"\0") + pages
open(sys.argv[1], "wb").write(out)
