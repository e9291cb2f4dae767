"""Reading a command's pseudo-terminal, for the CLI suites' heredocs that
drive lcsb in a terminal of its own (pty.fork)."""
import os


def read_until(fd, marker=None, out=b""):
    """OUT and what FD gives after it, until MARKER is in it (None: until
    the terminal's other side is closed, which reads as EOF or EIO)."""
    while marker is None or marker not in out:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
    return out
