"""`tagwarden serve` for one generated model, so Trino's OPA access control can ask it.

The daemon reads the model's snapshot.json with the model's profiles, listens on a loopback port
the kernel picks (read from its `listening` log line) and is stopped when the block ends. Its
clock (TAGWARDEN_TEST_CLOCK_FILE) is `now`, or else the snapshot's generated_at: the instant
`compile` judges expiry at, so both decide the same.
"""

import http.client
import json
import os
import subprocess
import time
import urllib.parse


class ModelDaemon:
    def __init__(self, tagwarden, workdir, profiles, now, timeout=60):
        self.tagwarden = tagwarden
        self.dir = os.path.join(workdir, "daemon")
        self.profiles = profiles
        self.now = now
        self.timeout = timeout
        self.proc = None
        self.port = 0

    def __enter__(self):
        os.makedirs(self.dir, exist_ok=True)
        config = {
            "profiles": self.profiles,
            "source": {"file": os.path.join(os.path.dirname(self.dir), "snapshot.json")},
            "server": {"listen": "127.0.0.1:0"},
            "state_dir": os.path.join(self.dir, "state"),
            "reconcile_interval": "1h",
        }
        config_path = os.path.join(self.dir, "tagwarden.yaml")
        with open(config_path, "w", encoding="utf-8") as f:
            json.dump(config, f, ensure_ascii=False, indent=1)  # JSON is YAML
        env = dict(os.environ)
        clock = os.path.join(self.dir, "clock")
        with open(clock, "w", encoding="ascii") as f:
            f.write(self.now + "\n")
        env["TAGWARDEN_TEST_CLOCK_FILE"] = clock
        self.log_path = os.path.join(self.dir, "daemon.log")
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen([self.tagwarden, "serve", "--config", config_path], stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, env=env)
        try:
            self._wait_ready()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return False

    def log_tail(self, n=15):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return "\n".join(f.read().splitlines()[-n:])
        except OSError:
            return "(no log)"

    def _wait_ready(self):
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daemon exited with {self.proc.returncode}:\n{self.log_tail()}")
            if not self.port:
                with open(self.log_path, encoding="utf-8", errors="replace") as f:
                    for line in f:
                        try:
                            ev = json.loads(line)
                        except ValueError:
                            continue
                        if ev.get("event") == "listening":
                            self.port = ev["ports"]["api"]
            if self.port:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                try:
                    conn.request("GET", "/readyz")
                    if conn.getresponse().status == 200:
                        return
                except OSError:
                    pass
                finally:
                    conn.close()
            time.sleep(0.02)
        raise RuntimeError(f"daemon not ready within {self.timeout}s:\n{self.log_tail()}")

    def opa_base(self, profile):
        return f"http://127.0.0.1:{self.port}/v1/profiles/{urllib.parse.quote(profile, safe='')}/trino-opa"

    def served(self, profile):
        """GET .../trino-opa/decisions: which compile answers, and in which access_control mode."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", urllib.parse.urlparse(self.opa_base(profile)).path + "/decisions")
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()
