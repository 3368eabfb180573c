"""`push`: N pushes through the whole FCM path. Debian's nghttpd (HTTP/2 + TLS on 127.0.0.1)
serves the OAuth token and a static `messages:send` answer. Times the provider alone
(`hearth-bench bench-push`), `plan` and `run notification-fanout` (queueing N pushes), and
`outbox deliver`."""
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time

from .common import ROOT, bins, data_options, load, scratch, timed, write_json

NOW = "2026-11-20T12:00:00Z"


def options(p):
    data_options(p, backend=False)
    p.add_argument("--count", type=int, default=50000)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@contextlib.contextmanager
def fake_fcm(work):
    """nghttpd serving WORK/www with a test CA's certificate; yields its port."""
    subprocess.run(["python3", ROOT + "/Tests/Servers/make_test_ca.py", work + "/ca", "localhost", "127.0.0.1"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["python3", ROOT + "/Tests/Servers/make_push_credentials.py", work + "/creds"], check=True, stdout=subprocess.DEVNULL)
    os.makedirs(work + "/www/v1/projects/hearth-test")
    with open(work + "/www/token", "w") as f:
        f.write('{"access_token": "ya29.bench-access-token", "expires_in": 3599, "token_type": "Bearer"}')
    with open(work + "/www/v1/projects/hearth-test/messages:send", "w") as f:
        f.write('{"name": "projects/hearth-test/messages/0:1"}')
    port = free_port()
    server = subprocess.Popen(["nghttpd", "-a", "127.0.0.1", "-d", work + "/www", str(port), work + "/ca/server.key", work + "/ca/server.pem"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if subprocess.run(["curl", "-s", "-o", "/dev/null", "--cacert", work + "/ca/ca.pem", f"https://localhost:{port}/token"]).returncode == 0:
                break
            time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait()


def write_data(work, n, port):
    """N users with one FCM token and one unread notification each, and WORK/hearth.toml."""
    data = work + "/data"
    for c in ("users", "notifications"):
        os.makedirs(os.path.join(data, c))
    for i in range(n):
        uid = "u%06d" % i
        write_json(os.path.join(data, "users", uid + ".json"),
                   {"name": "User %d" % i, "school": "MIT", "fcmTokens": ["bench-fcm-token-%06d-%s" % (i, "x" * 120)]})
        write_json(os.path.join(data, "notifications", "n%06d.json" % i),
                   {"userId": uid, "type": "gift_received", "title": "Gift received", "message": "Someone sent you %d points" % (i % 100 + 1),
                    "read": False, "createdAt": "2026-11-20T11:59:00.000Z", "actionUrl": "/gifts/t%d" % i})
    with open(work + "/hearth.toml", "w") as f:
        f.write(f'dataDir = "data"\n[http]\ncaFile = "{work}/ca/ca.pem"\n[outbox]\nconcurrency = 100\n[push]\nprovider = "fcm"\n'
                f'[push.fcm]\nserviceAccountEnv = "BENCH_FCM_SA"\nendpoint = "https://localhost:{port}"\ntokenUri = "https://localhost:{port}/token"\n')


def run(a):
    bins(a)
    if not shutil.which("nghttpd"):
        sys.exit("needs nghttpd (scripts/install-deps installs nghttp2-server)")
    with scratch("hearth-bench-push-") as work, fake_fcm(work) as port:
        write_data(work, a.count, port)
        measure(a, work, port)


def measure(a, work, port):
    n = a.count
    env = {k: v for k, v in os.environ.items() if k != "BENCH_FCM_SA"}
    cfg = ["--config", work + "/hearth.toml"]
    print(f"push benchmark: {n:,} pushes, {os.cpu_count()} cores, nghttpd on 127.0.0.1:{port}; load average {load():.1f}")
    print("| step | wall (s) | pushes/s | CPU (s) | peak RSS (MiB) |")
    print("|---|---:|---:|---:|---:|")

    def row(label, cmd, env):
        wall, cpu, rss, out = timed(cmd, cwd=work, env=env, ok=(0,))
        print(f"| {label} | {wall:.2f} | {n / wall:,.0f} | {cpu:.2f} | {rss:.1f} |")

    def pending():
        out = subprocess.run([a.bin, "outbox", "list", "--format", "json"] + cfg, cwd=work, capture_output=True, text=True, check=True).stdout
        return sum(1 for m in json.loads(out) if m["state"] == "pending")
    row("FCM provider alone (no outbox)", [a.bench_bin, "bench-push", "--service-account", work + "/creds/service-account.json", "--endpoint",
                                           f"https://localhost:{port}", "--token-uri", f"https://localhost:{port}/token", "--ca-file", work + "/ca/ca.pem",
                                           "--count", str(n), "--concurrency", "100"], None)
    row("plan notification-fanout", [a.bin, "plan", "notification-fanout", "--now", NOW, "--limit", "3"] + cfg, env)
    row("run notification-fanout (queue)", [a.bin, "run", "notification-fanout", "--now", NOW, "--limit", "3"] + cfg, env)
    if pending() != n:
        sys.exit(f"expected {n} pending messages")
    row("outbox deliver (FCM)", [a.bin, "outbox", "deliver"] + cfg, dict(env, BENCH_FCM_SA=work + "/creds/service-account.json"))
    if pending() != 0:
        sys.exit("messages still pending after outbox deliver")
