#!/usr/bin/env python3
"""Writes tests/corpora/shapes.txt: lines that look encoded and are not secret, which the redactor's decoding
(rule `encoded-secret`) must leave alone: git object ids, SHA digests, UUIDs, ETags, docker image digests, SSH
public keys and fingerprints, known_hosts lines, Subresource Integrity and npm lockfile hashes, PNG data URIs,
Kubernetes pod names, random base64 from openssl.

Real programs' output where the program runs here without a daemon or a network (git, sha256sum, sha1sum,
md5sum, ssh-keygen, openssl, base64, xxd, docker's and kubectl's client-side commands); where it needs a daemon or
a cluster (docker pull, kubectl get pods), the lines are written from the formats the programs document, with
random ids of the documented alphabets and lengths, and the group says so. Python's standard library only;
deterministic where the tools allow (a fixed seed for what Python makes; git, ssh-keygen and openssl make fresh
keys and ids per run, so the file is a captured snapshot, like benign.txt, not checked for freshness).

    python3 tests/corpora/collect_shapes.py      # rewrite shapes.txt
"""

import base64
import hashlib
import json
import os
import random
import struct
import subprocess
import tempfile
import uuid
import zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(ROOT, "tests", "corpora", "shapes.txt")
RNG = random.Random(20261129)


def run(args, cwd=None, stdin=None):
    out = subprocess.run(args, cwd=cwd, input=stdin, capture_output=True, text=True, check=False)
    return [line.rstrip() for line in (out.stdout + out.stderr).splitlines() if line.strip()]


def git_lines(work):
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    env_git = ["git", "-c", "user.name=Corpus", "-c", "user.email=corpus@example.invalid", "-c", "init.defaultBranch=main"]
    run(env_git + ["init", "-q"], cwd=repo)
    for i in range(6):
        with open(os.path.join(repo, f"f{i}.txt"), "w") as f:
            f.write(f"content {i}\n" * (i + 1))
        run(env_git + ["add", "."], cwd=repo)
        run(env_git + ["commit", "-q", "-m", f"change {i}"], cwd=repo)
    run(env_git + ["tag", "v1.0.0"], cwd=repo)
    lines = []
    for args in (["log", "--format=%H %s"], ["log", "--oneline"], ["rev-parse", "HEAD", "HEAD~1", "HEAD^{tree}"],
                 ["show-ref"], ["ls-tree", "HEAD"], ["log", "-1", "--format=commit %H%ntree %T%nparent %P"],
                 ["describe", "--long", "--tags"], ["reflog", "-3"], ["show", "--stat", "--format=%H", "HEAD"]):
        lines += run(env_git + args, cwd=repo)
    lines += run(env_git + ["fsck", "--full"], cwd=repo)
    return [line for line in lines if "@" not in line]


def digest_lines(work):
    path = os.path.join(work, "release.tar")
    with open(path, "wb") as f:
        f.write(bytes(RNG.randrange(256) for _ in range(4096)))
    lines = []
    for tool in ("sha256sum", "sha1sum", "md5sum", "sha512sum"):
        lines += [line.replace(work, "/tmp/build") for line in run([tool, path])]
    lines += [line.replace(work, "/tmp/build") for line in run(["openssl", "dgst", "-sha256", path])]
    sri = base64.b64encode(hashlib.sha384(open(path, "rb").read()).digest()).decode()
    lines.append(f'<script src="https://cdn.example.com/app.js" integrity="sha384-{sri}" crossorigin="anonymous"></script>')
    for i in range(3):
        blob = bytes(RNG.randrange(256) for _ in range(200))
        sha512 = base64.b64encode(hashlib.sha512(blob).digest()).decode()
        lines.append(f'      "integrity": "sha512-{sha512}",')
        sha1 = hashlib.sha1(blob).hexdigest()
        lines.append(f'"resolved": "https://registry.npmjs.org/pkg-{i}/-/pkg-{i}-1.0.{i}.tgz", "shasum": "{sha1}"')
    lines += [f"checksum {line.split()[0]}" for line in run(["sha256sum", path])]
    return lines


def uuid_lines():
    lines = []
    for i in range(8):
        u = uuid.UUID(int=RNG.getrandbits(128), version=4)
        lines.append(f"request {u} failed after {i + 1} retries")
        lines.append(f'{{"traceId": "{u.hex}", "spanId": "{u.hex[:16]}"}}')
    return lines


def etag_lines():
    lines = []
    for i in range(5):
        body = bytes(RNG.randrange(256) for _ in range(300 + i))
        md5 = hashlib.md5(body).hexdigest()
        lines.append(f'ETag: "{md5}"')
        lines.append(f'etag: "{md5}-{i + 2}"')  # S3 multipart
        lines.append(f'ETag: W/"{len(body):x}-{hashlib.sha1(body).hexdigest()[:27]}"')  # Express's weak ETag
        lines.append(f'ETag: "{RNG.getrandbits(32):x}-{len(body):x}"')  # nginx
        lines.append(f'If-None-Match: "{base64.b64encode(hashlib.sha1(body).digest()).decode()}"')
    return lines


def docker_lines():
    lines = run(["docker", "--version"])
    lines.append("#### written from docker's documented output (no daemon here)")
    for name in ("nginx", "postgres", "redis", "ghcr.io/acme/api"):
        digest = hashlib.sha256(name.encode() + bytes([RNG.randrange(256)])).hexdigest()
        image_id = hashlib.sha256(digest.encode()).hexdigest()
        lines += [
            "latest: Pulling from library/" + name.split("/")[-1],
            f"Digest: sha256:{digest}",
            f"Status: Downloaded newer image for {name}:latest",
            f"{name}@sha256:{digest}",
            f"{name:<20} latest    sha256:{digest}   {image_id[:12]}   2 weeks ago   187MB",
            f"{image_id[:12]}: Pull complete",
            f'"Id": "sha256:{image_id}",',
        ]
    return lines


def ssh_lines(work):
    lines = []
    for kind in ("ed25519", "rsa", "ecdsa"):
        key = os.path.join(work, f"id_{kind}")
        run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "ci@build", "-f", key])
        with open(key + ".pub") as f:
            pub = f.read().strip()
        lines.append(pub)
        lines += [line.replace(work, "/tmp/build") for line in run(["ssh-keygen", "-l", "-f", key + ".pub"])]
        lines += run(["ssh-keygen", "-l", "-E", "md5", "-f", key + ".pub"])
        parts = pub.split()
        lines.append(f"github.com {parts[0]} {parts[1]}")
        salt = os.urandom(20)
        hashed = base64.b64encode(hashlib.sha1(salt).digest()).decode()
        lines.append(f"|1|{base64.b64encode(salt).decode()}|{hashed} {parts[0]} {parts[1]}")
        lines.append(f'authorized_keys: command="/usr/bin/backup",no-pty {parts[0]} {parts[1]} backup@host')
    return lines


def png_data_uri(width, height):
    raw = b"".join(b"\x00" + bytes(RNG.randrange(256) for _ in range(width * 3)) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(png).decode()


def image_lines():
    lines = []
    for w, h in ((1, 1), (4, 4), (8, 3)):
        uri = png_data_uri(w, h)
        lines.append(f'<img alt="status" src="{uri}">')
        lines.append(json.dumps({"type": "image", "mimeType": "image/png", "data": uri.split(",", 1)[1]}))
    return lines


def kubectl_lines():
    lines = run(["kubectl", "version", "--client"])
    lines.append("#### written from kubectl's documented output (no cluster here)")
    # A Deployment's pods: <deployment>-<pod-template-hash>-<suffix>, the hash and suffix from Kubernetes's
    # "safe" alphabet (no vowels, no 0/1/3).
    safe = "bcdfghjklmnpqrstvwxz2456789"
    lines.append("NAME                                READY   STATUS    RESTARTS   AGE")
    for app in ("web", "api-gateway", "payments-worker", "redis-cache"):
        template = "".join(RNG.choice(safe) for _ in range(10))
        for _ in range(2):
            pod = f"{app}-{template}-{''.join(RNG.choice(safe) for _ in range(5))}"
            lines.append(f"{pod:<35} 1/1     Running   0          3d4h")
            lines.append(f'Error from server (NotFound): pods "{pod}" not found')
        lines.append(f"replicaset.apps/{app}-{template}   2         2         2       3d4h")
    uid = uuid.UUID(int=RNG.getrandbits(128), version=4)
    lines.append(f"  uid: {uid}")
    lines.append(f"  resourceVersion: \"{RNG.randrange(10**6, 10**7)}\"")
    lines.append(f"    image: nginx@sha256:{hashlib.sha256(b'nginx').hexdigest()}")
    lines.append(f"    imageID: docker-pullable://nginx@sha256:{hashlib.sha256(b'nginx-id').hexdigest()}")
    lines.append(f"    containerID: containerd://{hashlib.sha256(b'container').hexdigest()}")
    return lines


def random_base64_lines():
    lines = []
    for n in (16, 24, 32, 48):
        lines += [f"nonce={line}" for line in run(["openssl", "rand", "-base64", str(n)])]
        lines += [f"request-id: {line}" for line in run(["openssl", "rand", "-hex", str(n)])]
    blob = bytes(RNG.randrange(256) for _ in range(48))
    lines.append("payload: " + base64.b64encode(blob).decode())
    lines.append("cursor: " + base64.urlsafe_b64encode(blob[:30]).decode().rstrip("="))
    with tempfile.NamedTemporaryFile() as f:
        f.write(bytes(RNG.randrange(256) for _ in range(60)))
        f.flush()
        lines += run(["xxd", "-p", f.name])
        lines += [f"blob: {line}" for line in run(["base64", "-w", "0", f.name])]
    return lines


def main():
    groups = []
    with tempfile.TemporaryDirectory(prefix="jre-shapes-") as work:
        groups.append(("git", "git init/commit/log/rev-parse/show-ref/ls-tree/fsck in a throwaway repository", git_lines(work)))
        groups.append(("digests", "sha256sum, sha1sum, md5sum, sha512sum and openssl dgst of a random file; SRI and npm lockfile integrity lines", digest_lines(work)))
        groups.append(("ssh", "ssh-keygen: fresh ed25519, RSA and ECDSA public keys, their fingerprints, known_hosts and authorized_keys lines", ssh_lines(work)))
    groups.append(("uuids", "random version-4 UUIDs in log lines and a trace context", uuid_lines()))
    groups.append(("etags", "HTTP ETags as S3, Express and nginx write them", etag_lines()))
    groups.append(("docker", "docker --version; image digests and ids in docker pull/images output", docker_lines()))
    groups.append(("kubernetes", "kubectl version; pod names, uids and image digests in kubectl output", kubectl_lines()))
    groups.append(("images", "PNG images (made here with zlib) as data URIs and MCP image content", image_lines()))
    groups.append(("random", "openssl rand -base64/-hex, base64 and xxd -p of random bytes", random_base64_lines()))
    with open(OUT, "w") as f:
        f.write("#### Lines that look encoded and hold no secret (tests/corpora/collect_shapes.py; see tests/corpora/README.md)\n")
        for name, source, lines in groups:
            f.write(f"#### group {name}: {source}\n")
            for line in lines:
                f.write(line + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
