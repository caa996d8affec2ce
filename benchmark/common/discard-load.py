#!/usr/bin/env python3
"""Keep-alive GET load that throws response bodies away inside the kernel.

    discard-load.py PORT PATH CONNECTIONS SECONDS  ->  one JSON line

wrk copies every body byte into its own memory; serving a 16 MiB file over
loopback, that copy on the load core is what caps MiB/s (one wrk thread
receives ~1.2 GiB/s), not the server. Here each body is drained with
recv(MSG_TRUNC), which TCP (Linux >= 3.4) honours by dropping the queued
bytes without copying them, so the server, pinned to its own core, is what
runs out first. Heads are read normally and must carry a Content-Length
(file responses do); anything else is counted as an error and the
connection is dropped. Only for large bodies: per request this loop costs
far more than wrk, so small responses would measure this script instead.
"""
import json
import selectors
import socket
import sys
import time

port, path, connections, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
request = b"GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (path.encode(), port)
# MSG_TRUNC writes nothing into this buffer, but recv_into insists that the
# count it is given fits in it.
sink = memoryview(bytearray(16 << 20))
sel = selectors.DefaultSelector()


class Connection:
    def __init__(self):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.head = b""
        self.body_left = None  # None while the head is being read
        sel.register(self.sock, selectors.EVENT_READ, self)
        self.sock.send(request)


def parse_head(head):
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ", 2)[1])
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return status, length


done = errors = received = 0
statuses = {}
conns = [Connection() for _ in range(connections)]
start = time.monotonic()
deadline = start + seconds
while time.monotonic() < deadline:
    for key, _ in sel.select(0.05):
        c = key.data
        try:
            if c.body_left is None:
                chunk = c.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("closed")
                c.head += chunk
                received += len(chunk)
                end = c.head.find(b"\r\n\r\n")
                if end < 0:
                    continue
                status, length = parse_head(c.head[:end])
                if length is None:
                    raise ConnectionError("no Content-Length")
                statuses[status] = statuses.get(status, 0) + 1
                early = len(c.head) - end - 4
                c.head = b""
                c.body_left = length - early
            else:
                n = c.sock.recv_into(sink, min(c.body_left, len(sink)), socket.MSG_TRUNC)
                if n == 0:
                    raise ConnectionError("closed")
                c.body_left -= n
                received += n
            if c.body_left == 0:
                done += 1
                c.body_left = None
                c.sock.send(request)
        except (BlockingIOError, InterruptedError):
            continue
        except (OSError, ValueError, IndexError):
            errors += 1
            sel.unregister(c.sock)
            c.sock.close()
            conns[conns.index(c)] = Connection()
elapsed = time.monotonic() - start
for c in conns:
    c.sock.close()
# bytes: heads and bodies received, including responses cut short at the end.
print(json.dumps({"requests": done, "seconds": elapsed, "bytes": received, "errors": errors, "statuses": statuses}))
