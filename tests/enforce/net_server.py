"""The hosts of the net.domains cases: HTTP and HTTPS on the host's loopback,
named by a name the host resolves (argv[2]) to the address they listen on
(argv[3]; 127.0.1.1 where Debian's installer named the host), with a self-signed certificate
for that name, serving ROOT (argv[1]) with:

  hello.txt                  a line the clients print
  repo.git/                  a bare repository, for git's dumb HTTP protocol
  simple/lcsbdemo/           a package index page (PEP 503) and its wheel
  /echo (GET and POST)       the request line, Authorization and X-Token (each as it came
                             and as its SHA-256), Accept-Encoding and the body; with
                             "chunked" in the URL in chunks of five bytes, with "gzip"
                             gzipped whatever was asked, with "hex" the body hex-decoded,
                             with "te-list" chunked as the last of two codings, with
                             "te-other" under a Transfer-Encoding that is not chunked, with
                             "te-gzip" gzipped as a transfer coding before chunked, with
                             "bare-lf" chunked under a head whose lines end in a bare LF, with
                             "cr-line" chunked under a head with a line that starts with a CR,
                             with "switch" chunked after a 101, with "h2-status" chunked
                             after an interim head whose status line is HTTP/2's, with
                             "range" only the bytes a Range header asks for (206), with
                             "partial" a 206 whether asked for or not, with "compress-asked"
                             gzipped when Accept-Encoding asks for it, with "cut" ended
                             inside the X-Token line, short of its Content-Length; with
                             "store" it keeps what it echoes, with "fetch" it echoes that
                             instead (a request bin); it says the TE and Range headers it
                             got too
  /smart/repo.git            the same repository for git's smart HTTP protocol, clone and
                             push, behind Basic credentials whose password is
                             $LCSB_NET_SERVER_TOKEN

It prints "http PORT https PORT cert PATH" once it serves, and serves until
its stdin closes: the suite that started it holds the other end, so the
servers go with it, however it ends.
"""
import base64
import errno
import gzip
import hashlib
import http.server
import os
import ssl
import subprocess
import sys
import threading
import zipfile

ROOT, HOST, ADDRESS = sys.argv[1], sys.argv[2], sys.argv[3]
# In the environment, not in argv: any process may read another's argv.
TOKEN = os.environ.get("LCSB_NET_SERVER_TOKEN")


def make_certificate():
    key, cert = os.path.join(ROOT, "key.pem"), os.path.join(ROOT, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=" + HOST, "-addext", "subjectAltName=DNS:" + HOST,
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return key, cert


def make_repository(web):
    work = os.path.join(ROOT, "work")
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t", HOME=ROOT)
    def git(*args, cwd=work):
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)
    os.makedirs(work)
    git("init", "-q", "-b", "main")
    with open(os.path.join(work, "README"), "w") as f:
        f.write("cloned through lcsb's proxy\n")
    git("add", "README")
    git("commit", "-q", "-m", "first")
    git("clone", "-q", "--bare", work, os.path.join(web, "repo.git"), cwd=ROOT)
    git("update-server-info", cwd=os.path.join(web, "repo.git"))
    git("clone", "-q", "--bare", work, os.path.join(ROOT, "smart", "repo.git"), cwd=ROOT)


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def make_index(web):
    wheel = "lcsbdemo-1.0-py3-none-any.whl"
    files = {
        "lcsbdemo/__init__.py": b"GREETING = 'installed through the proxy'\n",
        "lcsbdemo-1.0.dist-info/METADATA":
            b"Metadata-Version: 2.1\nName: lcsbdemo\nVersion: 1.0\n",
        "lcsbdemo-1.0.dist-info/WHEEL":
            b"Wheel-Version: 1.0\nGenerator: lcsb-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(record_line(n, d) for n, d in files.items())
    record += "lcsbdemo-1.0.dist-info/RECORD,,\n"
    package = os.path.join(web, "simple", "lcsbdemo")
    os.makedirs(package)
    with zipfile.ZipFile(os.path.join(package, wheel), "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr("lcsbdemo-1.0.dist-info/RECORD", record)
    with open(os.path.join(package, "index.html"), "w") as f:
        f.write(f'<html><body><a href="{wheel}">{wheel}</a></body></html>\n')


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def echo(self):
        """/echo: what arrived, for the cases to check what the proxy sent
        on: the request line, the headers a secret may ride in, the body."""
        body = self.body()
        if "hex" in self.path:  # a form the proxy does not decode, which this server does
            body = bytes.fromhex(body.decode())
        def digest(name):
            value = self.headers.get(name)
            return hashlib.sha256(value.encode()).hexdigest() if value else None
        text = (f"{self.command} {self.path}\n"
                f"authorization: {self.headers.get('Authorization')}\n"
                f"authorization-sha256: {digest('Authorization')}\n"
                f"x-token: {self.headers.get('X-Token')}\n"
                f"x-token-sha256: {digest('X-Token')}\n"
                f"accept-encoding: {self.headers.get('Accept-Encoding')}\n"
                f"te: {self.headers.get('TE')}\n"
                f"range: {self.headers.get('Range')}\n").encode()
        text += b"body: " + body + b"\n"
        if "fetch" in self.path:  # what an earlier request left
            text = STORED.get("text", b"")
        if "store" in self.path:
            STORED["text"] = text
        if "compress-asked" in self.path and "gzip" in self.headers.get("Accept-Encoding", ""):
            packed = gzip.compress(text)
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(packed)))
            self.end_headers()
            self.wfile.write(packed)
            return
        if "partial" in self.path:  # a part, asked for or not
            self.send_response(206)
            self.send_header("Content-Range", f"bytes 0-{len(text) - 1}/{len(text)}")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
            return
        if "cut" in self.path:  # the connection ends inside the value
            at = text.find(b"x-token: ") + len(b"x-token: ") + 12
            self.send_response(200)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text[:at])
            self.close_connection = True
            return
        if "te-gzip" in self.path:  # the whole chunked body gzipped inside its chunks
            self.protocol_version = "HTTP/1.1"
            self.close_connection = True
            self.send_response(200)
            self.send_header("Transfer-Encoding", "gzip, chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            packed = gzip.compress(text)
            self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(packed), packed))
            return
        if "cr-line" in self.path or "switch" in self.path or "h2-status" in self.path:
            # a head line that starts with a CR (curl ends the head there), or a
            # 101 with a chunked body after it (clients read it raw): chunks follow
            self.close_connection = True
            chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
            head = (b"HTTP/1.1 101 Switching Protocols\r\nTransfer-Encoding: chunked\r\n\r\n"
                    if "switch" in self.path else
                    b"HTTP/2 100 OK\r\nContent-Length: 0\r\n\r\n" + chunked + b"\r\n"
                    if "h2-status" in self.path else chunked + b"\r\r\n")
            self.wfile.write(head)
            for i in range(0, len(text), 5):
                part = text[i:i + 5]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        if "bare-lf" in self.path:  # a head whose lines end in a bare LF, as clients take it
            self.close_connection = True
            self.wfile.write(b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\nConnection: close\n\n")
            for i in range(0, len(text), 5):
                part = text[i:i + 5]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        wanted = self.headers.get("Range", "")
        if "range" in self.path and wanted.startswith("bytes="):  # a part the client picks
            first, _, last = wanted[len("bytes="):].partition("-")
            first, last = int(first), int(last) if last else len(text) - 1
            part = text[first:last + 1]
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {first}-{last}/{len(text)}")
            self.send_header("Content-Length", str(len(part)))
            self.end_headers()
            self.wfile.write(part)
            return
        if "chunked" in self.path:  # chunks are HTTP/1.1's
            self.protocol_version = "HTTP/1.1"
            self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        if "gzip" in self.path:  # whatever the client asked for
            text = gzip.compress(text)
            self.send_header("Content-Encoding", "gzip")
        if "chunked" in self.path:  # five bytes a chunk: a value spans several
            # "te-list": chunked as the last of a list of codings, which
            # clients take as chunks too
            self.send_header("Transfer-Encoding",
                             "identity, chunked" if "te-list" in self.path else "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            for i in range(0, len(text), 5):
                part = text[i:i + 5]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        if "te-other" in self.path:  # a framing no proxy should guess at
            self.send_header("Transfer-Encoding", "chunked, identity")
            self.end_headers()
            self.wfile.write(text)
            return
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def smart(self):
        """git http-backend, as a CGI, for whoever gives the token."""
        want = "Basic " + base64.b64encode(f"git:{TOKEN}".encode()).decode()
        if not TOKEN or self.headers.get("Authorization") != want:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="lcsb-test"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path_info, _, query = self.path[len("/smart"):].partition("?")
        body = self.body()
        env = {"GIT_PROJECT_ROOT": os.path.join(ROOT, "smart"), "GIT_HTTP_EXPORT_ALL": "1",
               "PATH_INFO": path_info, "QUERY_STRING": query, "REQUEST_METHOD": self.command,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""), "REMOTE_USER": "git",
               "REMOTE_ADDR": "127.0.0.1", "CONTENT_LENGTH": str(len(body)),
               "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
               "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
               "PATH": os.environ["PATH"]}
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             capture_output=True).stdout
        ends = [i for i in (out.find(b"\r\n\r\n"), out.find(b"\n\n")) if i >= 0]
        end = min(ends) if ends else len(out)
        head = out[:end]
        rest = out[end + (4 if out.startswith(b"\r\n\r\n", end) else 2):]
        status, headers = 200, []
        for line in head.decode().replace("\r", "").split("\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

    def do_GET(self):
        if self.path.startswith("/echo"):
            return self.echo()
        if self.path.startswith("/smart/"):
            return self.smart()
        return super().do_GET()

    def do_POST(self):
        if self.path.startswith("/echo"):
            return self.echo()
        if self.path.startswith("/smart/"):
            return self.smart()
        self.send_error(501, "Unsupported method ('POST')")


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A client gone mid-request (a proxy that refused what followed
        the head) is no error of the server's."""


# What "store" kept, for "fetch": the server's memory of an earlier request.
STORED = {}


def serve(context=None):
    """One port on ADDRESS and, where that is another, on 127.0.0.1 too:
    the cases reach the server by the host's name and by localhost. The
    port the first address got may be another socket's on the second (a
    suite beside this one): then both go, and another port is tried."""
    handler = lambda *a, **k: Quiet(*a, directory=os.path.join(ROOT, "web"), **k)
    for _ in range(20):
        servers, port = [], 0
        try:
            for address in dict.fromkeys([ADDRESS, "127.0.0.1"]):
                servers.append(Server((address, port), handler))
                port = servers[-1].server_address[1]
        except OSError as e:
            for server in servers:
                server.server_close()
            if e.errno != errno.EADDRINUSE:
                raise
            continue
        for server in servers:
            if context:
                server.socket = context.wrap_socket(server.socket, server_side=True)
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return port
    raise OSError(errno.EADDRINUSE, "no port free on both addresses")


def main():
    web = os.path.join(ROOT, "web")
    os.makedirs(web)
    with open(os.path.join(web, "hello.txt"), "w") as f:
        f.write("hello through lcsb's proxy\n")
    make_repository(web)
    make_index(web)
    key, cert = make_certificate()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    print(f"http {serve()} https {serve(context)} cert {cert}", flush=True)
    sys.stdin.read()


main()
