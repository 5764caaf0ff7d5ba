#!/usr/bin/env python3
"""Writes tests/corpora/recall.jsonl: credentials of every provider gitleaks's default configuration covers
(plus the few the issue adds), each generated with a seeded generator and embedded in the error and log texts
real programs print. Standard library only; deterministic (splitmix64, seeded per provider and context).

    python3 tests/corpora/generate.py           # (re)write recall.jsonl
    python3 tests/corpora/generate.py --check   # exit 1 when recall.jsonl is not what this script writes

Built independently of redaction/rules.toml: the token shapes are the providers' documented (public) formats,
written here from that knowledge; nothing is derived from the redactor's rules. Each sample records the exact
secret substrings that must not survive redaction (the token without its fixed vendor prefix, the password of a
URL, the body lines of a PEM block, the base64 of a Basic credential, ...).

Output: JSON lines. The first is a header (generator hash, seed, counts); then one {"type":"provider",...} line
per provider (id, vendor, shape, distinct) and one {"type":"sample",...} line per provider and context
(provider, context, variant, text, secrets). A provider is `distinct` when its token carries a vendor prefix or
shape that identifies it without any surrounding name; only those are planted in the `bare` context (a token
alone in a message, no key name near it).
"""

import base64
import hashlib
import json
import os
import re
import string
import sys
import zlib

SEED = 20261121
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "recall.jsonl")
MASK = (1 << 64) - 1


class Rng:
    """splitmix64: the same numbers on every Python version and platform."""

    def __init__(self, *parts):
        digest = hashlib.sha256(":".join(str(p) for p in (SEED,) + parts).encode()).digest()
        self.state = int.from_bytes(digest[:8], "big")

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def pick(self, seq):
        return seq[self.below(len(seq))]

    def chars(self, charset, n):
        return "".join(charset[self.below(len(charset))] for _ in range(n))


DIGITS = string.digits
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
CHARSETS = {
    "a": UPPER + LOWER + DIGITS,          # alphanumeric
    "h": DIGITS + "abcdef",               # hex, lower case
    "H": DIGITS + "ABCDEF",               # hex, upper case
    "d": DIGITS,
    "l": LOWER + DIGITS,                  # lower-case alphanumeric
    "U": UPPER + DIGITS,                  # upper-case alphanumeric
    "L": UPPER + LOWER,                   # letters
    "b": UPPER + LOWER + DIGITS + "+/",   # base64
    "w": UPPER + LOWER + DIGITS + "_-",   # base64url
    "z": UPPER + LOWER + DIGITS + "_~.-", # Azure AD client secrets
    "x": UPPER + LOWER + DIGITS + "_~.",
    "B": UPPER + "234567",                # base32 (AWS key ids)
    "k": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",  # bech32, upper case (age)
}
PLACEHOLDER = re.compile(r"\{(uuid|UUID|[a-zA-Z])(\d*)\}")


def uuid4(r, upper=False):
    h = r.chars(CHARSETS["h"], 32)
    h = h[:12] + "4" + h[13:16] + "89ab"[r.below(4)] + h[17:]
    u = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return u.upper() if upper else u


def render(template, r):
    """Fills a shape: `{a36}` = 36 alphanumerics (see CHARSETS), `{uuid}`. Text inside «» is a secret; without
    «», the secret is everything after the shape's leading literal (its fixed vendor prefix)."""
    def fill(m):
        code, n = m.group(1), m.group(2)
        if code == "uuid":
            return uuid4(r)
        if code == "UUID":
            return uuid4(r, upper=True)
        return r.chars(CHARSETS[code], int(n))

    text = PLACEHOLDER.sub(fill, template)
    if "«" in text:
        secrets = re.findall("«(.*?)»", text, re.S)
        return text.replace("«", "").replace("»", ""), secrets
    prefix = PLACEHOLDER.split(template)[0] if PLACEHOLDER.search(template) else ""
    return text, [text[len(prefix):]]


B62 = DIGITS + UPPER + LOWER


def base62(n, width):
    out = ""
    while n:
        n, d = divmod(n, 62)
        out = B62[d] + out
    return out.rjust(width, "0")


def checksummed(prefix):
    """GitHub's and npm's token format: 30 random base62 characters, then the CRC32 of them in 6 base62 digits."""
    def gen(r):
        body = r.chars(CHARSETS["a"], 30)
        token = prefix + body + base62(zlib.crc32(body.encode()), 6)
        return token, [token[len(prefix):]]
    gen.shape = prefix + "{a30}{crc32 in 6 base62}"
    return gen


def b64(data, url=False, pad=True):
    out = (base64.urlsafe_b64encode if url else base64.b64encode)(data.encode() if isinstance(data, str) else data).decode()
    return out if pad else out.rstrip("=")


def jwt_token(r):
    header = b64('{"alg":"HS256","typ":"JWT"}', url=True, pad=False)
    payload = json.dumps({"sub": r.chars(DIGITS, 10), "name": "svc-" + r.chars(LOWER, 6), "role": "admin",
                          "iat": 1763700000 + r.below(100000), "exp": 1763786400 + r.below(100000)},
                         separators=(",", ":"))
    body = b64(payload, url=True, pad=False) + "." + r.chars(CHARSETS["w"], 43)
    return header + "." + body, [body]


def jwt_base64(r):
    jwt, _ = jwt_token(r)
    token = b64(jwt)
    return token, [token]


def grafana_api_key(r):
    token = b64(json.dumps({"k": r.chars(CHARSETS["a"], 32), "n": "ci-deploy", "id": 1}, separators=(",", ":")))
    return token, [token[8:]]


def grafana_cloud(r):
    doc = {"o": r.chars(DIGITS, 6), "n": "stack-" + r.chars(DIGITS, 6) + "-hm-read", "k": r.chars(CHARSETS["a"], 24),
           "m": {"r": "prod-us-east-0"}}
    token = "glc_" + b64(json.dumps(doc, separators=(",", ":")))
    return token, [token[4:]]


def sentry_org(r):
    doc = {"iat": 1763700000.123456, "url": "https://sentry.io", "region_url": "https://us.sentry.io", "org": "acme-" + r.chars(LOWER, 4)}
    token = "sntrys_" + b64(json.dumps(doc, separators=(",", ":"))).rstrip("=") + "_" + r.chars(CHARSETS["b"], 43)
    return token, [token[7:]]


def onepassword_sa(r):
    doc = {"signInAddress": "my.1password.com",
           "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256", "iterations": 650000, "salt": r.chars(CHARSETS["w"], 22)},
           "email": r.chars(LOWER, 13) + "@1passwordserviceaccounts.com", "srpX": r.chars(CHARSETS["h"], 64),
           "muk": {"alg": "A256GCM", "ext": True, "k": r.chars(CHARSETS["w"], 43), "key_ops": ["encrypt", "decrypt"], "kty": "oct", "kid": "mp"},
           "secretKey": "A3-" + r.chars(CHARSETS["U"], 6) + "-" + r.chars(CHARSETS["U"], 11) + "-" + r.chars(CHARSETS["U"], 5),
           "deviceUuid": r.chars(LOWER + DIGITS, 26)}
    token = "ops_" + b64(json.dumps(doc, separators=(",", ":")), url=True, pad=False)
    return token, [token[4:]]


def bedrock_long(r):
    raw = "BedrockAPIKey-" + r.chars(LOWER + DIGITS, 4) + "-at-" + r.chars(DIGITS, 12) + ":" + r.chars(CHARSETS["b"], 60)
    token = "ABSK" + b64(raw)
    return token, [token[4:]]


def bedrock_short(r):
    query = ("bedrock.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIA"
             + r.chars(CHARSETS["B"], 16) + "%2F20261121%2Fus-east-1%2Fbedrock%2Faws4_request&X-Amz-Date=20261121T100412Z"
             "&X-Amz-Expires=43200&X-Amz-Security-Token=IQoJb3JpZ2luX2Vj" + r.chars(CHARSETS["a"], 180)
             + "&X-Amz-Signature=" + r.chars(CHARSETS["h"], 64) + "&X-Amz-SignedHeaders=host&Version=1")
    token = "bedrock-api-key-" + b64(query)
    fixed = "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t"
    return token, [token[len(fixed):]]


def discord_bot(r):
    snowflake = "1" + r.chars(DIGITS, 18)
    token = b64(snowflake, url=True, pad=False) + "." + r.chars(CHARSETS["w"], 6) + "." + r.chars(CHARSETS["w"], 38)
    return token, [token]


def intercom(r):
    token = b64("tok:" + uuid4(r) + ":1:0")
    return token, [token]


def mapbox_secret(r):
    token = "sk." + b64(json.dumps({"u": "acme-maps", "a": r.chars(LOWER + DIGITS, 25)}, separators=(",", ":")), url=True, pad=False) \
        + "." + r.chars(CHARSETS["w"], 22)
    return token, [token[3:]]


def twitter_bearer(r):
    body = r.chars(CHARSETS["a"], 8) + "AAAAAAA" + r.chars(CHARSETS["a"], 10) + "%2B" + r.chars(CHARSETS["a"], 12) \
        + "%3D" + r.chars(CHARSETS["a"], 50)
    return "A" * 21 + body, [body]


def azure_sas(r):
    sig = b64(bytes(r.below(256) for _ in range(32))).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    url = ("https://acmeprod" + r.chars(LOWER, 4) + ".blob.core.windows.net/backups/db-2026-11-20.tar.gz?sv=2022-11-02&ss=b&srt=co"
           "&sp=rl&se=2026-12-01T00:00:00Z&st=2026-11-20T00:00:00Z&spr=https&sig=" + sig)
    return url, [sig]


def basic_header(r):
    cred = b64("svc-" + r.chars(LOWER, 5) + ":" + r.chars(CHARSETS["a"], 20))
    return "Basic " + cred, [cred]


def k8s_secret(r):
    value = b64(r.chars(CHARSETS["a"], 24))
    return value, [value]


def password(r):
    # What people choose: letters, digits and a few symbols (none that needs quoting in a shell or a URL).
    return r.chars(CHARSETS["a"], 12) + r.pick("!#%*+-.") + r.chars(CHARSETS["a"], 7) + r.pick("!#%*+-.") + r.chars(DIGITS, 2)


def password_gen(r):
    pw = password(r)
    return pw, [pw]


def pem(label, lead, lines, width=64, last=44):
    """A PEM block: base64 lines of `width` characters (the first beginning with the key type's fixed DER
    prefix), the last `last` long. The secrets are the body lines."""
    def gen(r):
        body = [lead + r.chars(CHARSETS["b"], width - len(lead))]
        body += [r.chars(CHARSETS["b"], width) for _ in range(lines - 2)]
        body.append(r.chars(CHARSETS["b"], last - 1) + "=")
        text = f"-----BEGIN {label}-----\n" + "\n".join(body) + f"\n-----END {label}-----"
        return text, body
    gen.shape = f"-----BEGIN {label}-----, {lines} base64 lines"
    return gen


def pgp_private(r):
    body = ["lQOYBGc" + r.chars(CHARSETS["b"], 57)] + [r.chars(CHARSETS["b"], 64) for _ in range(14)] + [r.chars(CHARSETS["b"], 40) + "=="]
    crc = "=" + r.chars(CHARSETS["b"], 4)
    text = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(body) + "\n" + crc + "\n-----END PGP PRIVATE KEY BLOCK-----"
    return text, body


def gcp_service_account(r):
    key_lines = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + r.chars(CHARSETS["b"], 14)]
    key_lines += [r.chars(CHARSETS["b"], 64) for _ in range(24)] + [r.chars(CHARSETS["b"], 27) + "="]
    key_id = r.chars(CHARSETS["h"], 40)
    project = "acme-prod-" + r.chars(DIGITS, 6)
    doc = {
        "type": "service_account", "project_id": project, "private_key_id": key_id,
        "private_key": "-----BEGIN PRIVATE KEY-----\n" + "\n".join(key_lines) + "\n-----END PRIVATE KEY-----\n",
        "client_email": f"deployer@{project}.iam.gserviceaccount.com", "client_id": r.chars(DIGITS, 21),
        "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token",
    }
    # The key id names the key and grants nothing: only the key's lines are secret.
    return json.dumps(doc, separators=(",", ":")), key_lines


# --- providers -------------------------------------------------------------------------------------------------
# (id, vendor, ENV_NAME, shape or generator, options)
#   host:     the API host the credential is sent to
#   send:     how an HTTP client sends it: ("header", name, prefix[, suffix]) | ("query", param) | ("url", template
#             with {t}) | ("self",) the value is itself a URL | ("basic", user) | ("basic-key",) token as user,
#             empty password | ("basic-raw",) the value is user:password | ("body", field) | None: never sent
#   distinct: the token names its vendor by itself (planted in the `bare` context too)
#   only:     contexts where this credential's shape occurs (a file format); default all
#   kind:     "command" for a shell command holding the credential

PROVIDERS = []


def P(pid, vendor, env, shape, host=None, send=("header", "Authorization", "Bearer "), distinct=False, **extra):
    PROVIDERS.append(dict(id=pid, vendor=vendor, env=env, shape=shape, host=host or f"api.{extra.get('slug', vendor)}.com", send=send,
                          distinct=distinct, **extra))


# 1Password
P("1password-secret-key", "onepassword", "OP_SECRET_KEY", "A3-{U6}-{U6}-{U5}-{U5}-{U5}-{U5}", host="my.1password.com", send=("body", "secret_key"), distinct=True)
P("1password-service-account-token", "onepassword", "OP_SERVICE_ACCOUNT_TOKEN", onepassword_sa, host="my.1password.com", distinct=True)
P("adafruit-api-key", "adafruit", "ADAFRUIT_IO_KEY", "aio_{a28}", host="io.adafruit.com", send=("header", "X-AIO-Key", ""), distinct=True)
P("adobe-client-secret", "adobe", "ADOBE_CLIENT_SECRET", "p8e-{a32}", host="ims-na1.adobelogin.com", send=("body", "client_secret"), distinct=True)
P("age-secret-key", "age", "SOPS_AGE_KEY", "AGE-SECRET-KEY-1{k58}", send=None, distinct=True)
P("airtable-api-key", "airtable", "AIRTABLE_API_KEY", "key{a14}")
P("airtable-personal-access-token", "airtable", "AIRTABLE_TOKEN", "pat{a14}.{h64}", distinct=True)
P("algolia-api-key", "algolia", "ALGOLIA_API_KEY", "{h32}", host="latency-dsn.algolia.net", send=("header", "X-Algolia-API-Key", ""))
P("alibaba-access-key-id", "alibaba", "ALIBABA_CLOUD_ACCESS_KEY_ID", "LTAI{a20}", host="ecs.aliyuncs.com", send=("query", "AccessKeyId"), distinct=True)
P("alibaba-secret-key", "alibaba", "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "{a30}", host="ecs.aliyuncs.com", send=None)
P("anthropic-api-key", "anthropic", "ANTHROPIC_API_KEY", "sk-ant-api03-{w93}AA", send=("header", "x-api-key", ""), distinct=True)
P("anthropic-admin-api-key", "anthropic", "ANTHROPIC_ADMIN_KEY", "sk-ant-admin01-{w93}AA", send=("header", "x-api-key", ""), distinct=True)
P("artifactory-api-key", "artifactory", "ARTIFACTORY_API_KEY", "AKCp{a69}", host="acme.jfrog.io", send=("header", "X-JFrog-Art-Api", ""), distinct=True)
P("artifactory-reference-token", "artifactory", "ARTIFACTORY_ACCESS_TOKEN", "cmVmdGtuOjAxOj{a50}", host="acme.jfrog.io", distinct=True)
P("asana-client-secret", "asana", "ASANA_CLIENT_SECRET", "{a32}", host="app.asana.com", send=("body", "client_secret"))
P("atlassian-api-token", "atlassian", "JIRA_API_TOKEN", "ATATT3xFfGF0{w170}={H8}", host="acme.atlassian.net", send=("basic", "jira-bot@acme.io"), distinct=True)
P("authress-service-client-access-key", "authress", "AUTHRESS_SERVICE_CLIENT_ACCESS_KEY", "sc_{l16}.{l5}.acc_{l20}.{b60}", host="login.acme.authress.io", distinct=True)
P("aws-access-key-id", "aws", "AWS_ACCESS_KEY_ID", "AKIA{B16}", host="sts.amazonaws.com",
  send=("header", "Authorization", "AWS4-HMAC-SHA256 Credential=", "/20261121/us-east-1/sts/aws4_request, SignedHeaders=host;x-amz-date, Signature=9e1c4f6a0d3b2e8f7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a"), distinct=True)
P("aws-temporary-access-key-id", "aws", "AWS_ACCESS_KEY_ID", "ASIA{B16}", host="s3.amazonaws.com",
  send=("header", "Authorization", "AWS4-HMAC-SHA256 Credential=", "/20261121/eu-west-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=2b7f0c9e8d6a5f4e3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"), distinct=True)
P("aws-secret-access-key", "aws", "AWS_SECRET_ACCESS_KEY", "{b40}", send=None)
P("aws-session-token", "aws", "AWS_SESSION_TOKEN", "IQoJb3JpZ2luX2Vj{b340}", host="s3.amazonaws.com", send=("header", "X-Amz-Security-Token", ""), distinct=True)
P("aws-bedrock-api-key-long-lived", "aws", "AWS_BEARER_TOKEN_BEDROCK", bedrock_long, host="bedrock-runtime.us-east-1.amazonaws.com", distinct=True)
P("aws-bedrock-api-key-short-lived", "aws", "AWS_BEARER_TOKEN_BEDROCK", bedrock_short, host="bedrock-runtime.us-east-1.amazonaws.com", distinct=True)
P("azure-ad-client-secret", "azure", "AZURE_CLIENT_SECRET", "{x3}{d1}Q~{z34}", host="login.microsoftonline.com", send=("body", "client_secret"), distinct=True)
P("azure-storage-account-key", "azure", "AZURE_STORAGE_KEY", "{b86}==", host="acmeprod.blob.core.windows.net", send=None)
P("azure-storage-connection-string", "azure", "AZURE_STORAGE_CONNECTION_STRING",
  "DefaultEndpointsProtocol=https;AccountName=acmeprod{l4};AccountKey=«{b86}==»;EndpointSuffix=core.windows.net", send=None, distinct=True)
P("azure-sas-token", "azure", "AZURE_BACKUP_SAS_URL", azure_sas, host="acmeprod.blob.core.windows.net", send=("self",), distinct=True)
P("beamer-api-token", "beamer", "BEAMER_API_KEY", "b_{w44}", host="api.getbeamer.com", send=("header", "Beamer-Api-Key", ""))
P("bitbucket-client-secret", "bitbucket", "BITBUCKET_CLIENT_SECRET", "{a32}", host="bitbucket.org", send=("body", "client_secret"))
P("bittrex-access-key", "bittrex", "BITTREX_API_KEY", "{h32}", send=("header", "Api-Key", ""))
P("bittrex-secret-key", "bittrex", "BITTREX_API_SECRET", "{h32}", send=None)
P("cisco-meraki-api-key", "meraki", "MERAKI_DASHBOARD_API_KEY", "{h40}", host="api.meraki.com", send=("header", "X-Cisco-Meraki-API-Key", ""))
P("clickhouse-cloud-api-secret-key", "clickhouse", "CLICKHOUSE_API_SECRET", "4b1d{a38}", host="api.clickhouse.cloud", send=("basic", "vHkBqz3nCVXS2Jdd8ryF"), distinct=True)
P("clojars-api-token", "clojars", "CLOJARS_DEPLOY_TOKEN", "CLOJARS_{l60}", host="repo.clojars.org", send=("basic", "acme-deploy"), distinct=True)
P("cloudflare-api-token", "cloudflare", "CLOUDFLARE_API_TOKEN", "{w40}")
P("cloudflare-global-api-key", "cloudflare", "CLOUDFLARE_API_KEY", "{h37}", send=("header", "X-Auth-Key", ""))
P("cloudflare-origin-ca-key", "cloudflare", "CF_ORIGIN_CA_KEY", "v1.0-{h24}-{h146}", send=("header", "X-Auth-User-Service-Key", ""), distinct=True)
P("codecov-access-token", "codecov", "CODECOV_TOKEN", "{uuid}", host="codecov.io", send=("header", "Authorization", "token "))
P("cohere-api-token", "cohere", "CO_API_KEY", "{a40}")
P("coinbase-access-token", "coinbase", "COINBASE_API_SECRET", "{w64}", send=None)
P("confluent-access-token", "confluent", "CONFLUENT_CLOUD_API_KEY", "{U16}", host="api.confluent.cloud", send=None)
P("confluent-secret-key", "confluent", "CONFLUENT_CLOUD_API_SECRET", "{a64}", host="api.confluent.cloud", send=("basic", "QWERTY2ZXCVB4NMA"))
P("contentful-delivery-api-token", "contentful", "CONTENTFUL_ACCESS_TOKEN", "{w43}", host="cdn.contentful.com")
P("curl-auth-header", "curl", "HEALTHCHECK_CMD", "curl -fsS -H 'Authorization: Bearer «{a40}»' https://api.acme.io/v1/health", send=None, distinct=True, kind="command")
P("curl-auth-user", "curl", "BACKUP_UPLOAD_CMD", "curl -fsS -u deploy:«{a20}» -T dump.sql.gz https://files.acme.io/upload/", send=None, distinct=True, kind="command")
P("databricks-api-token", "databricks", "DATABRICKS_TOKEN", "dapi{h32}", host="adb-4417083421516754.14.azuredatabricks.net", distinct=True)
P("datadog-api-key", "datadog", "DD_API_KEY", "{h32}", host="api.datadoghq.com", send=("header", "DD-API-KEY", ""))
P("datadog-app-key", "datadog", "DD_APP_KEY", "{h40}", host="api.datadoghq.com", send=("header", "DD-APPLICATION-KEY", ""))
P("defined-networking-api-token", "definednetworking", "DN_API_KEY", "dnkey-{l26}-{l52}", host="api.defined.net", distinct=True)
P("digitalocean-pat", "digitalocean", "DIGITALOCEAN_TOKEN", "dop_v1_{h64}", distinct=True)
P("digitalocean-access-token", "digitalocean", "DIGITALOCEAN_ACCESS_TOKEN", "doo_v1_{h64}", distinct=True)
P("digitalocean-refresh-token", "digitalocean", "DIGITALOCEAN_REFRESH_TOKEN", "dor_v1_{h64}", host="cloud.digitalocean.com", send=("body", "refresh_token"), distinct=True)
P("discord-bot-token", "discord", "DISCORD_TOKEN", discord_bot, host="discord.com", send=("header", "Authorization", "Bot "), distinct=True)
P("discord-client-secret", "discord", "DISCORD_CLIENT_SECRET", "{w32}", host="discord.com", send=("body", "client_secret"))
P("discord-webhook-url", "discord", "DISCORD_WEBHOOK_URL", "https://discord.com/api/webhooks/{d19}/«{w68}»", host="discord.com", send=("self",), distinct=True)
P("docker-hub-pat", "docker", "DOCKER_PASSWORD", "dckr_pat_{w27}", host="hub.docker.com", send=("basic", "acmebot"), distinct=True)
P("doppler-api-token", "doppler", "DOPPLER_TOKEN", "dp.pt.{a43}", distinct=True)
P("doppler-service-token", "doppler", "DOPPLER_TOKEN", "dp.st.prd.{a40}", distinct=True)
P("droneci-access-token", "droneci", "DRONE_TOKEN", "{a32}", host="drone.acme.io")
P("dropbox-api-token", "dropbox", "DROPBOX_APP_SECRET", "{l15}", host="api.dropboxapi.com", send=("body", "client_secret"))
P("dropbox-short-lived-api-token", "dropbox", "DROPBOX_ACCESS_TOKEN", "sl.B{w137}", host="api.dropboxapi.com")
P("dropbox-long-lived-api-token", "dropbox", "DROPBOX_ACCESS_TOKEN", "{a11}AAAAAAAAAA{w43}", host="api.dropboxapi.com")
P("duffel-api-token", "duffel", "DUFFEL_ACCESS_TOKEN", "duffel_live_{w43}", distinct=True)
P("dynatrace-api-token", "dynatrace", "DT_API_TOKEN", "dt0c01.{U24}.{U64}", host="abc12345.live.dynatrace.com", send=("header", "Authorization", "Api-Token "), distinct=True)
P("easypost-api-token", "easypost", "EASYPOST_API_KEY", "EZAK{a54}", send=("basic-key",), distinct=True)
P("easypost-test-api-token", "easypost", "EASYPOST_TEST_API_KEY", "EZTK{a54}", send=("basic-key",), distinct=True)
P("etsy-access-token", "etsy", "ETSY_API_KEY", "{l24}", host="openapi.etsy.com", send=("header", "x-api-key", ""))
P("facebook-secret", "facebook", "FACEBOOK_APP_SECRET", "{h32}", host="graph.facebook.com", send=("query", "client_secret"))
P("facebook-access-token", "facebook", "FACEBOOK_APP_TOKEN", "{d16}|«{w32}»", host="graph.facebook.com", send=("query", "access_token"))
P("facebook-page-access-token", "facebook", "FACEBOOK_PAGE_TOKEN", "EAAM{a180}", host="graph.facebook.com", send=("query", "access_token"), distinct=True)
P("fastly-api-token", "fastly", "FASTLY_API_TOKEN", "{w32}", send=("header", "Fastly-Key", ""))
P("finicity-api-token", "finicity", "FINICITY_APP_KEY", "{h32}", send=("header", "Finicity-App-Key", ""))
P("finicity-client-secret", "finicity", "FINICITY_PARTNER_SECRET", "{a20}", send=("body", "partnerSecret"))
P("finnhub-access-token", "finnhub", "FINNHUB_API_KEY", "c{l19}", host="finnhub.io", send=("header", "X-Finnhub-Token", ""))
P("flickr-access-token", "flickr", "FLICKR_API_KEY", "{h32}", send=("query", "api_key"))
P("flutterwave-secret-key", "flutterwave", "FLW_SECRET_KEY", "FLWSECK-{h32}-X", distinct=True)
P("flutterwave-encryption-key", "flutterwave", "FLW_ENCRYPTION_KEY", "FLWSECK_TEST{h12}", send=None, distinct=True)
P("flyio-access-token", "flyio", "FLY_API_TOKEN", "FlyV1 fm2_«{b180}»,fm2_«{b180}»", host="api.machines.dev", send=("header", "Authorization", ""), distinct=True)
P("frameio-api-token", "frameio", "FRAMEIO_TOKEN", "fio-u-{w64}", host="api.frame.io", distinct=True)
P("freemius-secret-key", "freemius", "FS_SECRET_KEY", "sk_{a29}", send=None)
P("freshbooks-access-token", "freshbooks", "FRESHBOOKS_TOKEN", "{h64}")
P("gcp-api-key", "google", "GOOGLE_API_KEY", "AIza{w35}", host="maps.googleapis.com", send=("query", "key"), distinct=True)
P("gcp-service-account-key", "google", "GOOGLE_CREDENTIALS_JSON", gcp_service_account, send=None, distinct=True)
P("google-oauth-client-secret", "google", "GOOGLE_CLIENT_SECRET", "GOCSPX-{w28}", host="oauth2.googleapis.com", send=("body", "client_secret"), distinct=True)
P("google-oauth-access-token", "google", "GOOGLE_ACCESS_TOKEN", "ya29.{w150}", host="www.googleapis.com", distinct=True)
P("github-pat", "github", "GITHUB_TOKEN", checksummed("ghp_"), send=("header", "Authorization", "token "), distinct=True)
P("github-fine-grained-pat", "github", "GITHUB_TOKEN", "github_pat_{a22}_{a59}", distinct=True)
P("github-oauth", "github", "GITHUB_OAUTH_TOKEN", checksummed("gho_"), distinct=True)
P("github-app-user-token", "github", "GH_TOKEN", checksummed("ghu_"), distinct=True)
P("github-app-installation-token", "github", "GITHUB_INSTALLATION_TOKEN", checksummed("ghs_"), distinct=True)
P("github-refresh-token", "github", "GITHUB_REFRESH_TOKEN", checksummed("ghr_"), host="github.com", send=("body", "refresh_token"), distinct=True)
P("gitlab-pat", "gitlab", "GITLAB_TOKEN", "glpat-{w20}", host="gitlab.com", send=("header", "PRIVATE-TOKEN", ""), distinct=True)
P("gitlab-pat-routable", "gitlab", "GITLAB_TOKEN", "glpat-{w40}.01{l7}", host="gitlab.com", send=("header", "PRIVATE-TOKEN", ""), distinct=True)
P("gitlab-ptt", "gitlab", "CI_TRIGGER_TOKEN", "glptt-{h40}", host="gitlab.com", send=("body", "token"), distinct=True)
P("gitlab-rrt", "gitlab", "RUNNER_REGISTRATION_TOKEN", "GR1348941{w20}", host="gitlab.com", send=("body", "token"), distinct=True)
P("gitlab-runner-authentication-token", "gitlab", "RUNNER_TOKEN", "glrt-{w20}", host="gitlab.com", send=("body", "token"), distinct=True)
P("gitlab-runner-authentication-token-routable", "gitlab", "RUNNER_TOKEN", "glrt-t1_{w40}.01{l7}", host="gitlab.com", send=("body", "token"), distinct=True)
P("gitlab-cicd-job-token", "gitlab", "CI_JOB_TOKEN", "glcbt-{a2}_{w20}", host="gitlab.com", send=("header", "JOB-TOKEN", ""), distinct=True)
P("gitlab-deploy-token", "gitlab", "GITLAB_DEPLOY_TOKEN", "gldt-{w20}", host="registry.gitlab.com", send=("basic", "gitlab+deploy-token-42"), distinct=True)
P("gitlab-feed-token", "gitlab", "GITLAB_FEED_TOKEN", "glft-{w20}", host="gitlab.com", send=("query", "feed_token"), distinct=True)
P("gitlab-incoming-mail-token", "gitlab", "GITLAB_INCOMING_EMAIL_TOKEN", "glimt-{w25}", host="gitlab.com", send=None, distinct=True)
P("gitlab-kubernetes-agent-token", "gitlab", "GITLAB_AGENT_TOKEN", "glagent-{w50}", host="kas.gitlab.com", distinct=True)
P("gitlab-oauth-app-secret", "gitlab", "GITLAB_OAUTH_SECRET", "gloas-{w64}", host="gitlab.com", send=("body", "client_secret"), distinct=True)
P("gitlab-scim-token", "gitlab", "GITLAB_SCIM_TOKEN", "glsoat-{w20}", host="gitlab.com", distinct=True)
P("gitlab-feature-flag-client-token", "gitlab", "UNLEASH_INSTANCE_ID", "glffct-{w20}", host="gitlab.com", send=("header", "UNLEASH-INSTANCEID", ""), distinct=True)
P("gitlab-session-cookie", "gitlab", "GITLAB_SESSION_COOKIE", "_gitlab_session={l32}", host="gitlab.com", send=("header", "Cookie", ""), distinct=True)
P("gitter-access-token", "gitter", "GITTER_TOKEN", "{h40}", host="api.gitter.im")
P("gocardless-api-token", "gocardless", "GOCARDLESS_ACCESS_TOKEN", "live_{w40}")
P("grafana-api-key", "grafana", "GRAFANA_API_KEY", grafana_api_key, host="grafana.acme.io", distinct=True)
P("grafana-cloud-api-token", "grafana", "GRAFANA_CLOUD_TOKEN", grafana_cloud, host="grafana.net", distinct=True)
P("grafana-service-account-token", "grafana", "GRAFANA_SERVICE_ACCOUNT_TOKEN", "glsa_{a32}_{h8}", host="grafana.acme.io", distinct=True)
P("harness-api-key", "harness", "HARNESS_PLATFORM_API_KEY", "pat.{w22}.{a24}.{a20}", host="app.harness.io", send=("header", "x-api-key", ""), distinct=True)
P("hashicorp-tf-api-token", "terraform", "TFE_TOKEN", "{a14}.atlasv1.{w67}", host="app.terraform.io", distinct=True)
P("hashicorp-tf-password", "terraform", "TF_VAR_administrator_login_password", password_gen, send=None)
P("vault-service-token", "vault", "VAULT_TOKEN", "hvs.CAESI{w86}", host="vault.acme.io:8200", send=("header", "X-Vault-Token", ""), distinct=True)
P("vault-batch-token", "vault", "VAULT_TOKEN", "hvb.AAAAAQ{w150}", host="vault.acme.io:8200", send=("header", "X-Vault-Token", ""), distinct=True)
P("heroku-api-key", "heroku", "HEROKU_API_KEY", "{uuid}")
P("heroku-api-key-v2", "heroku", "HEROKU_API_KEY", "HRKU-AA{w58}", distinct=True)
P("hubspot-api-key", "hubspot", "HUBSPOT_API_KEY", "{UUID}", host="api.hubapi.com", send=("query", "hapikey"))
P("hubspot-private-app-token", "hubspot", "HUBSPOT_ACCESS_TOKEN", "pat-na1-{uuid}", host="api.hubapi.com", distinct=True)
P("huggingface-access-token", "huggingface", "HF_TOKEN", "hf_{L34}", host="huggingface.co", distinct=True)
P("huggingface-organization-api-token", "huggingface", "HF_ORG_TOKEN", "api_org_{L34}", host="huggingface.co", distinct=True)
P("infracost-api-token", "infracost", "INFRACOST_API_KEY", "ico-{a32}", host="pricing.api.infracost.io", send=("header", "X-Api-Key", ""), distinct=True)
P("intercom-api-key", "intercom", "INTERCOM_ACCESS_TOKEN", intercom, host="api.intercom.io")
P("intra42-client-secret", "intra42", "FT_CLIENT_SECRET", "s-s4t2ud-{h64}", host="api.intra.42.fr", send=("body", "client_secret"), distinct=True)
P("jfrog-identity-token", "jfrog", "JFROG_ACCESS_TOKEN", "{a64}", host="acme.jfrog.io")
P("jwt", "jwt", "ACCESS_TOKEN", jwt_token, host="api.acme.io", distinct=True)
P("jwt-base64", "jwt", "SERVICE_TOKEN_B64", jwt_base64, host="api.acme.io", send=None, distinct=True)
P("kraken-access-token", "kraken", "KRAKEN_API_SECRET", "{b86}==", send=None)
P("kubernetes-secret-yaml", "kubernetes", "K8S_SECRET", k8s_secret, send=None, only=("yaml", "json-config", "log-plain"), kind="k8s")
P("kucoin-access-token", "kucoin", "KUCOIN_API_KEY", "{h24}", send=("header", "KC-API-KEY", ""))
P("kucoin-secret-key", "kucoin", "KUCOIN_API_SECRET", "{uuid}", send=None)
P("launchdarkly-access-token", "launchdarkly", "LAUNCHDARKLY_ACCESS_TOKEN", "api-{uuid}", host="app.launchdarkly.com", send=("header", "Authorization", ""))
P("linear-api-key", "linear", "LINEAR_API_KEY", "lin_api_{a40}", host="api.linear.app", send=("header", "Authorization", ""), distinct=True)
P("linear-client-secret", "linear", "LINEAR_CLIENT_SECRET", "{h32}", host="api.linear.app", send=("body", "client_secret"))
P("linkedin-client-secret", "linkedin", "LINKEDIN_CLIENT_SECRET", "{a16}", host="www.linkedin.com", send=("body", "client_secret"))
P("lob-api-key", "lob", "LOB_API_KEY", "live_{h35}", send=("basic-key",))
P("looker-client-secret", "looker", "LOOKERSDK_CLIENT_SECRET", "{a24}", host="acme.cloud.looker.com", send=("body", "client_secret"))
P("mailchimp-api-key", "mailchimp", "MAILCHIMP_API_KEY", "{h32}-us{d2}", host="us14.api.mailchimp.com", send=("basic", "anystring"), distinct=True)
P("mailgun-private-api-token", "mailgun", "MAILGUN_API_KEY", "key-{h32}", host="api.mailgun.net", send=("basic", "api"))
P("mailgun-signing-key", "mailgun", "MAILGUN_WEBHOOK_SIGNING_KEY", "{h32}-{h8}-{h8}", send=None)
P("mapbox-secret-token", "mapbox", "MAPBOX_SECRET_TOKEN", mapbox_secret, send=("query", "access_token"), distinct=True)
P("mattermost-access-token", "mattermost", "MATTERMOST_TOKEN", "{l26}", host="chat.acme.io")
P("maxmind-license-key", "maxmind", "MAXMIND_LICENSE_KEY", "{a6}_{a29}_mmk", host="download.maxmind.com", send=("query", "license_key"), distinct=True)
P("messagebird-api-token", "messagebird", "MESSAGEBIRD_API_KEY", "{a25}", host="rest.messagebird.com", send=("header", "Authorization", "AccessKey "))
P("microsoft-teams-webhook", "teams", "TEAMS_WEBHOOK_URL", "https://acme.webhook.office.com/webhookb2/{uuid}@{uuid}/IncomingWebhook/«{h32}»/{uuid}",
  host="acme.webhook.office.com", send=("self",), distinct=True)
P("netlify-access-token", "netlify", "NETLIFY_AUTH_TOKEN", "nfp_{a36}", distinct=True)
P("new-relic-user-api-key", "newrelic", "NEW_RELIC_API_KEY", "NRAK-{U27}", send=("header", "Api-Key", ""), distinct=True)
P("new-relic-insert-key", "newrelic", "NEW_RELIC_INSERT_KEY", "NRII-{l32}", host="insights-collector.newrelic.com", send=("header", "X-Insert-Key", ""), distinct=True)
P("new-relic-browser-api-token", "newrelic", "NEW_RELIC_BROWSER_KEY", "NRJS-{h19}", host="bam.nr-data.net", send=("query", "a"), distinct=True)
P("new-relic-license-key", "newrelic", "NEW_RELIC_LICENSE_KEY", "{h36}NRAL", host="collector.newrelic.com", send=("header", "X-License-Key", ""), distinct=True)
P("notion-api-token", "notion", "NOTION_TOKEN", "ntn_{d11}{a35}", distinct=True)
P("notion-integration-secret", "notion", "NOTION_API_KEY", "secret_{a43}")
P("npm-access-token", "npm", "NPM_TOKEN", checksummed("npm_"), host="registry.npmjs.org", distinct=True)
P("nytimes-access-token", "nytimes", "NYT_API_KEY", "{a32}", send=("query", "api-key"))
P("octopus-deploy-api-key", "octopus", "OCTOPUS_API_KEY", "API-{U26}", host="acme.octopus.app", send=("header", "X-Octopus-ApiKey", ""), distinct=True)
P("okta-access-token", "okta", "OKTA_API_TOKEN", "00{w40}", host="acme.okta.com", send=("header", "Authorization", "SSWS "))
P("openai-api-key-legacy", "openai", "OPENAI_API_KEY", "sk-{a20}T3BlbkFJ{a20}", distinct=True)
P("openai-project-key", "openai", "OPENAI_API_KEY", "sk-proj-{w74}T3BlbkFJ{w74}", distinct=True)
P("openai-service-account-key", "openai", "OPENAI_API_KEY", "sk-svcacct-{w74}T3BlbkFJ{w74}", distinct=True)
P("openai-admin-key", "openai", "OPENAI_ADMIN_KEY", "sk-admin-{w74}T3BlbkFJ{w74}", distinct=True)
P("openshift-user-token", "openshift", "OPENSHIFT_TOKEN", "sha256~{w43}", host="api.ocp.acme.io:6443", distinct=True)
P("perplexity-api-key", "perplexity", "PERPLEXITY_API_KEY", "pplx-{a48}", host="api.perplexity.ai", distinct=True)
P("plaid-secret-key", "plaid", "PLAID_SECRET", "{h30}", host="production.plaid.com", send=("body", "secret"))
P("plaid-api-token", "plaid", "PLAID_ACCESS_TOKEN", "access-production-{uuid}", host="production.plaid.com", send=("body", "access_token"), distinct=True)
P("planetscale-api-token", "planetscale", "PLANETSCALE_SERVICE_TOKEN", "pscale_tkn_{w43}", distinct=True)
P("planetscale-oauth-token", "planetscale", "PLANETSCALE_OAUTH_TOKEN", "pscale_oauth_{w43}", distinct=True)
P("planetscale-password", "planetscale", "PLANETSCALE_DB_PASSWORD", "pscale_pw_{w43}", send=None, distinct=True)
P("postman-api-token", "postman", "POSTMAN_API_KEY", "PMAK-{h24}-{h34}", host="api.getpostman.com", send=("header", "X-Api-Key", ""), distinct=True)
P("prefect-api-token", "prefect", "PREFECT_API_KEY", "pnu_{a36}", host="api.prefect.cloud", distinct=True)
P("privateai-api-token", "privateai", "PRIVATE_AI_API_KEY", "{a32}", host="api.private-ai.com", send=("header", "x-api-key", ""))
P("private-key-rsa", "pem", "TLS_PRIVATE_KEY", pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 25), send=None, slug="tls", host="tls.acme.io", distinct=True)
P("private-key-pkcs8", "pem", "PRIVATE_KEY", pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 26), send=None, slug="signer", host="signer.acme.io", distinct=True)
P("private-key-encrypted", "pem", "SIGNING_KEY", pem("ENCRYPTED PRIVATE KEY", "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI", 27), send=None, slug="signer", host="signer.acme.io", distinct=True)
P("private-key-ec", "pem", "EC_PRIVATE_KEY", pem("EC PRIVATE KEY", "MHcCAQEEI", 3), send=None, slug="apns", host="api.push.apple.com", distinct=True)
P("private-key-openssh", "pem", "SSH_PRIVATE_KEY", pem("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 5, width=70, last=70), send=None, slug="deploy", host="git.acme.io", distinct=True)
P("private-key-pgp", "pem", "GPG_PRIVATE_KEY", pgp_private, send=None, slug="release", host="keys.openpgp.org", distinct=True)
P("pypi-upload-token", "pypi", "TWINE_PASSWORD", "pypi-AgEIcHlwaS5vcmcCJ{w150}", host="upload.pypi.org", send=("basic", "__token__"), distinct=True)
P("pulumi-api-token", "pulumi", "PULUMI_ACCESS_TOKEN", "pul-{h40}", send=("header", "Authorization", "token "), distinct=True)
P("rapidapi-access-token", "rapidapi", "RAPIDAPI_KEY", "{w50}", host="weatherapi-com.p.rapidapi.com", send=("header", "X-RapidAPI-Key", ""))
P("readme-api-token", "readme", "README_API_KEY", "rdme_{l70}", host="dash.readme.com", send=("basic-key",), distinct=True)
P("rubygems-api-token", "rubygems", "GEM_HOST_API_KEY", "rubygems_{h48}", host="rubygems.org", send=("header", "Authorization", ""), distinct=True)
P("scalingo-api-token", "scalingo", "SCALINGO_API_TOKEN", "tk-us-{w48}", host="auth.scalingo.com", send=("basic-key",), distinct=True)
P("sendbird-access-token", "sendbird", "SENDBIRD_API_TOKEN", "{h40}", host="api-5b2c7e1d.sendbird.com", send=("header", "Api-Token", ""))
P("sendgrid-api-token", "sendgrid", "SENDGRID_API_KEY", "SG.{w22}.{w43}", distinct=True)
P("sendinblue-api-token", "brevo", "BREVO_API_KEY", "xkeysib-{h64}-{a16}", send=("header", "api-key", ""), distinct=True)
P("sentry-access-token", "sentry", "SENTRY_AUTH_TOKEN", "{h64}", host="sentry.io")
P("sentry-org-token", "sentry", "SENTRY_AUTH_TOKEN", sentry_org, host="sentry.io", distinct=True)
P("sentry-user-token", "sentry", "SENTRY_AUTH_TOKEN", "sntryu_{h64}", host="sentry.io", distinct=True)
P("settlemint-application-access-token", "settlemint", "SETTLEMINT_ACCESS_TOKEN", "sm_aat_{a16}", host="console.settlemint.com", distinct=True)
P("settlemint-personal-access-token", "settlemint", "SETTLEMINT_PERSONAL_ACCESS_TOKEN", "sm_pat_{a16}", host="console.settlemint.com", distinct=True)
P("settlemint-service-access-token", "settlemint", "SETTLEMINT_SERVICE_TOKEN", "sm_sat_{a16}", host="console.settlemint.com", distinct=True)
P("shippo-api-token", "shippo", "SHIPPO_API_TOKEN", "shippo_live_{h40}", host="api.goshippo.com", send=("header", "Authorization", "ShippoToken "), distinct=True)
P("shopify-access-token", "shopify", "SHOPIFY_ACCESS_TOKEN", "shpat_{h32}", host="acme-store.myshopify.com", send=("header", "X-Shopify-Access-Token", ""), distinct=True)
P("shopify-custom-access-token", "shopify", "SHOPIFY_ACCESS_TOKEN", "shpca_{h32}", host="acme-store.myshopify.com", send=("header", "X-Shopify-Access-Token", ""), distinct=True)
P("shopify-private-app-access-token", "shopify", "SHOPIFY_ACCESS_TOKEN", "shppa_{h32}", host="acme-store.myshopify.com", send=("header", "X-Shopify-Access-Token", ""), distinct=True)
P("shopify-shared-secret", "shopify", "SHOPIFY_API_SECRET", "shpss_{h32}", send=None, distinct=True)
P("sidekiq-secret", "sidekiq", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM", "«{h8}»:«{h8}»", host="enterprise.contribsys.com", send=("basic-raw",))
P("sidekiq-sensitive-url", "sidekiq", "SIDEKIQ_GEM_SOURCE", "https://«{h8}»:«{h8}»@gems.contribsys.com/", host="gems.contribsys.com", send=("self",), distinct=True)
P("slack-bot-token", "slack", "SLACK_BOT_TOKEN", "xoxb-{d12}-{d13}-{a24}", host="slack.com", distinct=True)
P("slack-user-token", "slack", "SLACK_USER_TOKEN", "xoxp-{d12}-{d12}-{d13}-{h32}", host="slack.com", distinct=True)
P("slack-app-token", "slack", "SLACK_APP_TOKEN", "xapp-1-A{U10}-{d13}-{h64}", host="slack.com", distinct=True)
P("slack-config-access-token", "slack", "SLACK_CONFIG_TOKEN", "xoxe.xoxp-1-{a164}", host="slack.com", distinct=True)
P("slack-config-refresh-token", "slack", "SLACK_CONFIG_REFRESH_TOKEN", "xoxe-1-{a146}", host="slack.com", send=("body", "refresh_token"), distinct=True)
P("slack-legacy-bot-token", "slack", "SLACK_TOKEN", "xoxb-{d11}-{a24}", host="slack.com", distinct=True)
P("slack-legacy-token", "slack", "SLACK_TOKEN", "xoxs-{d10}-{d11}-{d12}-{h64}", host="slack.com", distinct=True)
P("slack-legacy-workspace-token", "slack", "SLACK_TOKEN", "xoxa-2-{a40}", host="slack.com", distinct=True)
P("slack-webhook-url", "slack", "SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T{U10}/B{U10}/«{a24}»", host="hooks.slack.com", send=("self",), distinct=True)
P("slack-workflow-webhook-url", "slack", "SLACK_WORKFLOW_WEBHOOK", "https://hooks.slack.com/triggers/T{U10}/{d13}/«{h32}»", host="hooks.slack.com", send=("self",), distinct=True)
P("snyk-api-token", "snyk", "SNYK_TOKEN", "{uuid}", host="api.snyk.io", send=("header", "Authorization", "token "))
P("sonar-api-token", "sonar", "SONAR_TOKEN", "squ_{h40}", host="sonarcloud.io", send=("basic-key",), distinct=True)
P("sonar-project-analysis-token", "sonar", "SONAR_TOKEN", "sqp_{h40}", host="sonar.acme.io", send=("basic-key",), distinct=True)
P("sourcegraph-access-token", "sourcegraph", "SRC_ACCESS_TOKEN", "sgp_{h16}_{h40}", host="sourcegraph.acme.io", send=("header", "Authorization", "token "), distinct=True)
P("square-access-token", "square", "SQUARE_ACCESS_TOKEN", "EAAA{w60}", host="connect.squareup.com", distinct=True)
P("square-oauth-secret", "square", "SQUARE_APPLICATION_SECRET", "sq0csp-{w43}", host="connect.squareup.com", send=("body", "client_secret"), distinct=True)
P("squarespace-access-token", "squarespace", "SQUARESPACE_API_KEY", "{uuid}")
P("stripe-secret-key", "stripe", "STRIPE_SECRET_KEY", "sk_live_{a99}", distinct=True)
P("stripe-restricted-key", "stripe", "STRIPE_RESTRICTED_KEY", "rk_live_{a99}", distinct=True)
P("stripe-test-secret-key", "stripe", "STRIPE_SECRET_KEY", "sk_test_{a99}", distinct=True)
P("stripe-webhook-secret", "stripe", "STRIPE_WEBHOOK_SECRET", "whsec_{a32}", send=None, distinct=True)
P("sumologic-access-token", "sumologic", "SUMO_ACCESS_KEY", "{a64}", send=("basic", "suKq7w3ZbT9xYp"))
P("telegram-bot-api-token", "telegram", "TELEGRAM_BOT_TOKEN", "{d10}:AA{w33}", host="api.telegram.org", send=("url", "https://api.telegram.org/bot{t}/sendMessage?chat_id=-1001234567890"), distinct=True)
P("travisci-access-token", "travisci", "TRAVIS_API_TOKEN", "{w22}", host="api.travis-ci.com", send=("header", "Authorization", "token "))
P("twilio-api-key", "twilio", "TWILIO_API_KEY", "SK{h32}", send=None, distinct=True)
P("twilio-auth-token", "twilio", "TWILIO_AUTH_TOKEN", "{h32}", send=("basic", "AC3f9b2e7d1c0a4b6e8f5d2c9a7b1e3f4d"))
P("twitch-api-token", "twitch", "TWITCH_CLIENT_SECRET", "{l30}", host="id.twitch.tv", send=("body", "client_secret"))
P("twitter-api-key", "twitter", "TWITTER_API_KEY", "{a25}", send=None)
P("twitter-api-secret", "twitter", "TWITTER_API_SECRET", "{a50}", send=None)
P("twitter-access-token", "twitter", "TWITTER_ACCESS_TOKEN", "{d19}-{a40}", send=None)
P("twitter-access-secret", "twitter", "TWITTER_ACCESS_TOKEN_SECRET", "{a45}", send=None)
P("twitter-bearer-token", "twitter", "TWITTER_BEARER_TOKEN", twitter_bearer, distinct=True)
P("typeform-api-token", "typeform", "TYPEFORM_TOKEN", "tfp_{w44}_{a14}", distinct=True)
P("yandex-access-token", "yandex", "YC_TOKEN", "t1.{w20}.{w86}", host="iam.api.cloud.yandex.net")
P("yandex-api-key", "yandex", "YC_API_KEY", "AQVN{w36}", host="llm.api.cloud.yandex.net", send=("header", "Authorization", "Api-Key "), distinct=True)
P("yandex-aws-access-token", "yandex", "YC_SECRET_ACCESS_KEY", "YC{w38}", send=None)
P("zendesk-secret-key", "zendesk", "ZENDESK_API_TOKEN", "{a40}", host="acme.zendesk.com", send=("basic", "support-bot@acme.io/token"))
# Beyond gitleaks's list, named by the issue: a generic key, passwords in connection URLs, a Basic credential.
P("generic-api-key", "generic", "INTERNAL_API_KEY", "{a32}", host="internal-api.acme.io", send=("header", "X-Api-Key", ""))
P("generic-password", "generic", "DB_PASSWORD", password_gen, send=None)
P("postgres-url-password", "postgres", "DATABASE_URL", "postgresql://app_user:«{a24}»@db.acme.io:5432/orders?sslmode=require", send=None, distinct=True)
P("mysql-url-password", "mysql", "DATABASE_URL", "mysql://root:«{a24}»@mysql.acme.io:3306/app", send=None, distinct=True)
P("mongodb-srv-password", "mongodb", "MONGODB_URI", "mongodb+srv://svc-api:«{a24}»@cluster0.ab1cd.mongodb.net/prod?retryWrites=true&w=majority", send=None, distinct=True)
P("redis-url-password", "redis", "REDIS_URL", "rediss://default:«{a24}»@redis.acme.io:6380/0", send=None, distinct=True)
P("amqp-url-password", "rabbitmq", "AMQP_URL", "amqps://worker:«{a24}»@mq.acme.io:5671/prod", send=None, distinct=True)
P("http-basic-auth", "http", "UPSTREAM_AUTHORIZATION", basic_header, host="internal-api.acme.io", send=("header", "Authorization", ""), distinct=True)


def generate_token(p, r):
    shape = p["shape"]
    if callable(shape):
        return shape(r)
    return render(shape, r)


def describe_shape(p):
    shape = p["shape"]
    if callable(shape):
        return getattr(shape, "shape", None) or shape.__name__ + "()"
    return shape.replace("«", "").replace("»", "")


# --- quoting as each language prints a string --------------------------------------------------------------------

def py(s):
    return repr(s)


def dq(s):
    """Go's %q, Rust's {:?} and JSON: double quotes, backslash escapes."""
    return json.dumps(s)


def js(s, indent=2):
    """Node's util.inspect: single quotes; a multi-line string in an object is printed one line per piece."""
    quote = "'" if "'" not in s else '"'

    def q(part):
        return quote + part.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\n") + quote
    if "\n" not in s or len(s) <= 16:
        return q(s)
    pieces = s.split("\n")
    pieces = [p + "\n" for p in pieces[:-1]] + [pieces[-1]]
    return (" +\n" + " " * (indent + 2)).join(q(p) for p in pieces if p)


def yml(s, indent):
    if "\n" in s:
        return "|\n" + "\n".join(" " * indent + line for line in s.split("\n"))
    if s[:1] in "-?:,[]{}#&*!|>'\"%@`" or ": " in s or " #" in s or re.fullmatch(r"[\d.]+", s):
        return "'" + s.replace("'", "''") + "'"
    return s


def dotenv(s):
    if re.fullmatch(r"[A-Za-z0-9_./:@+=,~-]+", s):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def logfmt(s):
    return s if re.fullmatch(r'[^\s"=]+', s) else dq(s)


# --- contexts ----------------------------------------------------------------------------------------------------

def names(p):
    parts = [x for x in p["env"].lower().split("_") if x]
    slug = p.get("slug", p["vendor"])
    return dict(
        ENV=p["env"], snake=p["env"].lower(), camel=parts[0] + "".join(x.capitalize() for x in parts[1:]),
        pascal="".join(x.capitalize() for x in parts), kebab="-".join(parts), mod=slug, vendor=slug.capitalize(),
        host=p["host"],
    )


def T(template, **kw):
    return string.Template(template).substitute(**kw)


def ctx_python_exception(p, t, r, n):
    v = r.below(3)
    if v == 0:
        return v, T("""Traceback (most recent call last):
  File "/srv/app/${mod}_sync/worker.py", line ${l1}, in run
    self.client.authenticate()
  File "/opt/venv/lib/python3.12/site-packages/${mod}_client/auth.py", line ${l2}, in authenticate
    raise AuthenticationError(f"${vendor} rejected ${snake}={self.${snake}!r}")
${mod}_client.errors.AuthenticationError: ${vendor} rejected ${snake}=${val}""", l1=40 + r.below(200), l2=20 + r.below(90), val=py(t), **n)
    if v == 1:
        return v, T("ValueError: invalid ${ENV} for ${vendor}: ${val} (expected a credential issued by ${host})", val=py(t), **n)
    return v, T("${mod}_client.exceptions.Unauthorized: 401 Unauthorized: credentials rejected "
                "(config={'endpoint': 'https://${host}', '${snake}': ${val}, 'timeout': 30})", val=py(t), **n)


def ctx_python_locals(p, t, r, n):
    locals_ = {"payload": "{'grant_type': 'client_credentials', 'scope': 'read'}", "resp": "<Response [401]>",
               "self": f"<{n['mod']}_client.Client object at 0x7f{r.chars(CHARSETS['h'], 10)}>", n["snake"]: py(t),
               "url": f"'https://{n['host']}/v1/auth'"}
    width = max(len(k) for k in locals_)
    body = "\n".join(f"{k.ljust(width)} = {locals_[k]}" for k in sorted(locals_))
    return 0, T("""    def authenticate(self):
        resp = self.session.post(self.url, json=self.payload)
>       resp.raise_for_status()
E       requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://${host}/v1/auth

${body}

/opt/venv/lib/python3.12/site-packages/requests/models.py:1024: HTTPError""", body=body, **n)


def ctx_node_error(p, t, r, n):
    v = r.below(2)
    if v == 0:
        return v, T("""Error: ${vendor} authentication failed: invalid ${ENV} "${t}"
    at Client.login (/app/dist/clients/${mod}.js:${l1}:13)
    at async main (/app/dist/index.js:12:3)""", t=t, l1=10 + r.below(300), **n)
    return v, T("[${mod}] request to https://${host}/v1/me failed: HTTP 401 {\"message\":\"Bad credentials\"} (${camel}: ${t})", t=t, **n)


def ctx_node_inspect(p, t, r, n):
    return 0, T("""client init failed {
  baseURL: 'https://${host}/v1',
  ${camel}: ${val},
  timeout: 30000,
  retry: { retries: 3, factor: 2 }
}""", val=js(t), **n)


def ctx_go_error(p, t, r, n):
    v = r.below(2)
    if v == 0:
        return v, T("""panic: ${mod}: authenticate: invalid ${snake} ${val}

goroutine 1 [running]:
main.main()
	/src/cmd/${mod}-sync/main.go:${l1} +0x1d4
exit status 2""", val=dq(t), l1=20 + r.below(200), **n)
    return v, T("2026/11/21 10:04:12 ${mod}: POST https://${host}/v1/auth: 401 Unauthorized (${snake}=${val})", val=dq(t), **n)


def ctx_go_struct(p, t, r, n):
    return 0, T("2026/11/21 10:04:12 loaded config: &{Endpoint:https://${host} ${pascal}:${t} Timeout:30s Retries:3 Debug:false}", t=t, **n)


def ctx_rust_error(p, t, r, n):
    v = r.below(2)
    if v == 0:
        return v, T("""Error: authentication with ${vendor} failed

Caused by:
    0: POST https://${host}/v1/auth returned 401 Unauthorized
    1: credential rejected: ${val}""", val=dq(t), **n)
    return v, T("""thread 'main' panicked at src/main.rs:${l1}:10:
called `Result::unwrap()` on an `Err` value: Auth { ${snake}: ${val}, status: 401 }
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace""", val=dq(t), l1=10 + r.below(90), **n)


def ctx_rust_debug(p, t, r, n):
    return 0, T("""[2026-11-21T10:04:12Z ERROR ${mod}_sync] starting with Settings {
    endpoint: "https://${host}",
    ${snake}: ${val},
    timeout: 30s,
    retries: 3,
}""", val=dq(t), **n)


def ctx_java_exception(p, t, r, n):
    v = r.below(2)
    if v == 0:
        return v, T("""***************************
APPLICATION FAILED TO START
***************************

Description:

Failed to bind properties under '${mod}.${kebab}' to java.lang.String:

    Property: ${mod}.${kebab}
    Value: "${t}"
    Origin: System Environment Property "${ENV}"
    Reason: credential rejected by ${host}""", t=t, **n)
    return v, T("""java.lang.IllegalStateException: ${vendor} rejected ${camel} ${t}
	at com.acme.${mod}.Client.authenticate(Client.java:${l1})
	at com.acme.${mod}.SyncJob.run(SyncJob.java:57)""", t=t, l1=30 + r.below(200), **n)


def ctx_java_tostring(p, t, r, n):
    return 0, T("2026-11-21 10:04:12.118  WARN 1 --- [           main] c.a.${mod}.ClientFactory                 : "
                "creating client with ClientConfig(endpoint=https://${host}, ${camel}=${t}, timeoutMs=30000)", t=t, **n)


def ctx_db_driver(p, t, r, n):
    v = r.below(3)
    if v == 0:
        return v, T("""sqlalchemy.exc.IntegrityError: (psycopg2.errors.UniqueViolation) duplicate key value violates unique constraint "integrations_${snake}_key"
DETAIL:  Key (${snake})=(${t}) already exists.

[SQL: INSERT INTO integrations (provider, ${snake}) VALUES (%(provider)s, %(${snake})s)]
[parameters: {'provider': '${mod}', '${snake}': ${val}}]
(Background on this error at: https://sqlalche.me/e/20/gkpj)""", t=t, val=py(t), **n)
    if v == 1:
        return v, T("pymysql.err.IntegrityError: (1062, \"Duplicate entry '${t}' for key 'credentials.uq_${snake}'\")", t=t, **n)
    return v, T("""error: duplicate key value violates unique constraint "credentials_${snake}_key"
    at /app/node_modules/pg/lib/client.js:535:17 {
  length: 243,
  severity: 'ERROR',
  code: '23505',
  detail: ${val},
  table: 'credentials',
  constraint: 'credentials_${snake}_key'
}""", val=js(f"Key ({n['snake']})=({t}) already exists.", indent=2), **n)


def ctx_http_client(p, t, r, n):
    send = p["send"]
    if send is None:
        return None
    mode = send[0]
    if mode in ("header", "basic", "basic-key", "basic-raw"):
        secrets = None
        if mode == "header":
            name, value = send[1], send[2] + t + (send[3] if len(send) > 3 else "")
        else:
            raw = {"basic": f"{send[1]}:{t}" if mode == "basic" else "", "basic-key": f"{t}:", "basic-raw": t}[mode]
            cred = b64(raw)
            name, value, secrets = "Authorization", "Basic " + cred, [cred]
        v = r.below(3)
        if v == 0:
            text = T("""*   Trying 104.18.32.7:443...
* Connected to ${host} (104.18.32.7) port 443
* using HTTP/2
> GET /v1/me HTTP/2
> Host: ${host}
> User-Agent: curl/8.5.0
> Accept: */*
> ${name}: ${value}
>
< HTTP/2 401
< content-type: application/json
<
{"message":"Bad credentials"}""", name=name, value=value, **n)
        elif v == 1:
            text = ("send: " + repr(f"GET /v1/me HTTP/1.1\r\nHost: {n['host']}\r\nUser-Agent: python-requests/2.32.3\r\n"
                                    f"Accept-Encoding: gzip, deflate\r\nAccept: */*\r\nConnection: keep-alive\r\n{name}: {value}\r\n\r\n".encode())
                    + "\nreply: 'HTTP/1.1 401 Unauthorized\\r\\n'\nheader: Content-Type: application/json")
        else:
            key = name if re.fullmatch(r"[A-Za-z_$][\w$]*", name) else js(name)
            text = T("""AxiosError: Request failed with status code 401
    at settle (/app/node_modules/axios/dist/node/axios.cjs:2031:12) {
  code: 'ERR_BAD_REQUEST',
  config: {
    method: 'get',
    url: 'https://${host}/v1/me',
    headers: Object [AxiosHeaders] {
      Accept: 'application/json, text/plain, */*',
      ${key}: ${value},
      'User-Agent': 'axios/1.7.9'
    }
  }
}""", key=key, value=js(value, indent=6), **n)
        return (v, text, secrets)
    if mode in ("query", "url", "self"):
        if mode == "query":
            url = f"https://{n['host']}/v1/resource?{send[1]}={t}&format=json"
        elif mode == "url":
            url = send[1].replace("{t}", t)
        else:
            url = t
        host = re.match(r"[a-z+]+://(?:[^@/]*@)?([^/:?]+)", url).group(1)
        path = url.split(host, 1)[1].split("/", 1)
        path = "/" + path[1] if len(path) > 1 else "/"
        v = r.below(3)
        if v == 0:
            return v, f"requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: {url}"
        if v == 1:
            return v, (f"requests.exceptions.ConnectionError: HTTPSConnectionPool(host='{host}', port=443): Max retries exceeded with url: {path} "
                       "(Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f3a2c1d9e50>: "
                       "Failed to establish a new connection: [Errno 111] Connection refused'))")
        return v, f'Post "{url}": dial tcp: lookup {host} on 127.0.0.53:53: no such host'
    if mode == "body":
        body = json.dumps({send[1]: t, "grant_type": "client_credentials"})
        return 0, ("send: " + repr(f"POST /oauth/token HTTP/1.1\r\nHost: {n['host']}\r\nContent-Type: application/json\r\n"
                                   f"Content-Length: {len(body)}\r\n\r\n".encode())
                   + "\nsend: " + repr(body.encode()) + "\nreply: 'HTTP/1.1 400 Bad Request\\r\\n'")
    raise ValueError(mode)


def ctx_dotenv(p, t, r, n):
    return 0, T("""failed to load /srv/app/.env: line 5: unexpected character "'" in variable name "'PORT=8080"
APP_ENV=production
LOG_LEVEL=info
${ENV}=${val}
'PORT=8080""", val=dotenv(t), **n)


def ctx_yaml(p, t, r, n):
    return 0, T("""Error: INSTALLATION FAILED: values don't meet the specifications of the schema(s) in the following chart(s):
${mod}-sync:
- ${mod}.timeout: Invalid type. Expected: integer, given: string
--- values.yaml
${mod}:
  endpoint: https://${host}
  ${snake}: ${val}
  timeout: "30\"""", val=yml(t, 4), **n)


def ctx_json_config(p, t, r, n):
    v = r.below(2)
    if v == 0:
        doc = json.dumps({"endpoint": f"https://{n['host']}", n["camel"]: t, "timeout": "30"}, separators=(",", ":"))
        return v, f"invalid config: json: cannot unmarshal string into Go struct field Config.timeout of type int: {doc}"
    doc = json.dumps({"endpoint": f"https://{n['host']}", n["camel"]: t, "timeout": "30"}, indent=2)
    return v, f"Error: config validation failed for /etc/{n['mod']}/config.json: /timeout must be integer\n{doc}"


def ctx_env_output(p, t, r, n):
    return 0, T("""$$ env
HOSTNAME=5f0c2e1d9a7b
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LANG=C.UTF-8
${ENV}=${t}
NODE_ENV=production
PWD=/srv/app""", t=t, **n)


def ctx_log_plain(p, t, r, n):
    return 0, T("2026-11-21 10:04:12,118 ERROR [integrations.${mod}] ${vendor} rejected ${snake} ${t}: 401 Unauthorized", t=t, **n)


def ctx_log_logfmt(p, t, r, n):
    return 0, T('time=2026-11-21T10:04:12.118Z level=error msg="upstream auth failed" provider=${mod} ${snake}=${val} status=401 duration=182ms',
                val=logfmt(t), **n)


def ctx_log_json(p, t, r, n):
    return 0, json.dumps({"time": "2026-11-21T10:04:12.118Z", "level": "error", "msg": "upstream auth failed", "provider": n["mod"],
                          n["snake"]: t, "status": 401}, separators=(",", ":"))


def ctx_bare(p, t, r, n):
    if not p["distinct"]:
        return None
    v = r.below(4)
    return v, [
        f"KeyError: {py(t)}",
        f"2026-11-21T10:04:12.118Z WARN credential {t} was rejected (401), retrying in 5s",
        f"Error: Command failed with exit code 1: deploy --auth {t} --region eu-west-1",
        f"unexpected value {dq(t)} at line 12, column 9",
    ][v]


CONTEXTS = [
    ("python-exception", ctx_python_exception), ("python-locals", ctx_python_locals),
    ("node-error", ctx_node_error), ("node-inspect", ctx_node_inspect),
    ("go-error", ctx_go_error), ("go-struct", ctx_go_struct),
    ("rust-error", ctx_rust_error), ("rust-debug", ctx_rust_debug),
    ("java-exception", ctx_java_exception), ("java-tostring", ctx_java_tostring),
    ("db-driver", ctx_db_driver), ("http-client", ctx_http_client),
    ("dotenv", ctx_dotenv), ("yaml", ctx_yaml), ("json-config", ctx_json_config), ("env-output", ctx_env_output),
    ("log-plain", ctx_log_plain), ("log-logfmt", ctx_log_logfmt), ("log-json", ctx_log_json),
    ("bare", ctx_bare),
]


def k8s_context(context, t, r, n):
    """A Kubernetes Secret's data: its manifest, `kubectl get -o json`, and the last-applied annotation."""
    if context == "yaml":
        return 0, T("""Error from server (BadRequest): error when creating "deploy/secret.yaml": Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 8
--- deploy/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: db-credentials
  namespace: prod
type: Opaque
data:
  password: ${t}
  username: YXBwX3VzZXI=""", t=t)
    if context == "json-config":
        return 0, json.dumps({"apiVersion": "v1", "data": {"password": t, "username": "YXBwX3VzZXI="}, "kind": "Secret",
                              "metadata": {"name": "db-credentials", "namespace": "prod"}, "type": "Opaque"}, indent=4)
    if context == "log-plain":
        applied = json.dumps({"apiVersion": "v1", "data": {"password": t, "username": "YXBwX3VzZXI="}, "kind": "Secret",
                              "metadata": {"annotations": {}, "name": "db-credentials", "namespace": "prod"}, "type": "Opaque"},
                             separators=(",", ":"))
        return 0, ("Name:         db-credentials\nNamespace:    prod\nAnnotations:  kubectl.kubernetes.io/last-applied-configuration:\n"
                   f"                {applied}\n\nType:  Opaque")
    return None


def samples():
    out = []
    for p in PROVIDERS:
        n = names(p)
        for context, fn in CONTEXTS:
            if "only" in p and context not in p["only"]:
                continue
            r = Rng(p["id"], context)
            token, secrets = generate_token(p, r)
            got = k8s_context(context, token, r, n) if p.get("kind") == "k8s" else fn(p, token, r, n)
            if got is None:
                continue
            if len(got) == 3:
                variant, text, override = got
                secrets = override or secrets
            else:
                variant, text = got
            for s in secrets:
                assert s in text, (p["id"], context, s)
            out.append({"type": "sample", "provider": p["id"], "context": context, "variant": variant, "text": text, "secrets": secrets})
    return out


def build():
    with open(__file__, "rb") as f:
        me = hashlib.sha256(f.read()).hexdigest()
    rows = samples()
    ids = [p["id"] for p in PROVIDERS]
    assert len(ids) == len(set(ids)), "duplicate provider id"
    lines = [json.dumps({"type": "provider", "id": p["id"], "vendor": p["vendor"], "shape": describe_shape(p), "distinct": p["distinct"]})
             for p in PROVIDERS]
    lines += [json.dumps(row) for row in rows]
    body = "\n".join(lines) + "\n"
    # The body's hash lets a reader without Python tell that nobody edited the data by hand.
    header = json.dumps({"type": "header", "generator": "tests/corpora/generate.py", "generator_sha256": me,
                         "body_sha256": hashlib.sha256(body.encode()).hexdigest(), "seed": SEED, "providers": len(PROVIDERS),
                         "contexts": [c for c, _ in CONTEXTS], "samples": len(rows)})
    return header + "\n" + body


def main():
    data = build()
    if "--check" in sys.argv[1:]:
        try:
            with open(OUT, encoding="utf-8") as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current != data:
            print(f"{os.path.relpath(OUT)} is stale: run python3 tests/corpora/generate.py", file=sys.stderr)
            return 1
        return 0
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(data)
    print(f"wrote {OUT}: {data.count(chr(10)) - 1} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
