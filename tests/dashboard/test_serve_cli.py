"""`make demo`'s last line is the exact command that opens the dashboard on the demo data, and
that command (the real `trail serve` process) serves it."""

from __future__ import annotations

import http.client
import os
import re
import shlex
import subprocess
from pathlib import Path

from tests.conftest import TRAIL


def test_demo_ends_with_the_command_that_serves_its_data(trail_home: Path) -> None:
    done = subprocess.run([TRAIL, "demo"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    last = done.stdout.rstrip().splitlines()
    assert last[-2] == "open the dashboard on the demo data:"
    words = shlex.split(last[-1])
    assert words[0] == f"TRAIL_HOME={trail_home}" and words[2:] == ["serve"]
    assert Path(words[1]).resolve() == Path(TRAIL).resolve()
    env = {**os.environ, "TRAIL_HOME": words[0].split("=", 1)[1]}
    proc = subprocess.Popen(
        [words[1], "serve", "--port", "0"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # printed once the first sync is done
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        port = int(found.group(1))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
        resp = conn.getresponse()
        body = resp.read().decode()
        assert resp.status == 200
        assert body.count('<tr class="session"') == 7  # every demo session
        # the L2 demo session: every guide citation links to an event on its page
        [guided] = re.findall(r'href="(/session/claude-code%2Fdemo-guided-[^"]+)"', body)
        conn.request("GET", guided, headers={"Host": f"127.0.0.1:{port}"})
        page = conn.getresponse().read().decode()
        l2 = page[page.index('<section id="l2">') : page.index('<section id="timeline">')]
        assert "misaligned" in l2 and "tokens in" in l2  # the judge's recorded usage
        cited = re.findall(r'<a class="flag" href="#(ev-[A-Za-z0-9_-]+)"', l2)
        assert cited and all(f'id="{c}"' in page for c in cited)
        assert 'class="badge v-misaligned">L2 misaligned' in page
        # the guides page: the demo's CLAUDE.md, broken in its one engaged session
        conn.request("GET", "/guides", headers={"Host": f"127.0.0.1:{port}"})
        guides = conn.getresponse().read().decode()
        assert re.search(r"<td>CLAUDE\.md</td><td>[0-9a-f]{12}</td><td>0% \(0/1 engaged", guides)
        assert guided.split("/session/")[1] in guides.replace("/", "%2F")
    finally:
        proc.terminate()
        proc.wait(30)


def test_a_busy_port_is_a_clear_error(trail_home: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [TRAIL, "serve", "--port", str(port)], capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 1
    assert f"cannot serve on 127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr
