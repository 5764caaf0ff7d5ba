//! `redact.json`: every catalogue rule's examples, benign look-alikes, caller-supplied environment values.

use super::record::case;
use serde_json::{json, Value};

pub(super) fn redact_cases() -> Value {
    let mut cases = Vec::new();
    let examples = jsonrpc_errors_guest::redact::examples();
    for rule in jsonrpc_errors_guest::redact::catalogue_rules() {
        let rule_examples = &examples[&rule.id];
        for (i, ex) in rule_examples.examples.iter().enumerate() {
            cases.push(case(
                &format!("{}/positive-{}", rule.id, i + 1),
                "redact",
                json!({"text": ex}),
            ));
        }
        for (i, ex) in rule_examples.negative_examples.iter().enumerate() {
            cases.push(case(
                &format!("{}/negative-{}", rule.id, i + 1),
                "redact",
                json!({"text": ex}),
            ));
        }
    }
    for (name, text) in [
        ("benign/uuid", "request 123e4567-e89b-12d3-a456-426614174000 failed"),
        ("benign/sha256", "digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 mismatch"),
        ("benign/git-sha", "HEAD is now at 1b1281e4c0ffee"),
        ("benign/version", "requires jsonrpc-errors >= 1.2.3-beta.4+build.5"),
        ("benign/identifiers-with-key-and-token", "the key_count, tokenizer and token_budget settings; keyboard layout; monkey patch"),
        ("benign/env-references", "set $GITHUB_TOKEN, ${AWS_SECRET_ACCESS_KEY} or %API_KEY%"),
        ("benign/template", "password: {{ vault.db_password }}"),
        ("benign/vendor-example-keys", "AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        ("benign/empty", ""),
        ("benign/unicode", "Fehler: Datei „bericht.pdf“ nicht gefunden — 文件未找到"),
        ("mixed/several-secrets-one-line", "user alice@corp.example sent Authorization: Bearer abcDEF123456ghiJKL from /Users/alice/work with AKIAR6QMW4WXFOGO6MVN"),
        // Lines that look alike once redacted: settling looks at `password=[REDACTED:…]` once and remembers it
        // found nothing new (the npm base module, built without that memory, must agree byte for byte).
        ("mixed/repeated-redacted-words", "login password=hunter2a user=ann@corp.example\nlogin password=s3cr3t99 user=bob@corp.example\nlogin password=[REDACTED:secret-assignment]ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d user=cy@corp.example"),
        // Found by cargo-fuzz: a keyword's window ended at the next word holding the keyword again, which then
        // opened none, so the credential after it survived.
        ("mixed/keyword-word-before-basic-credential", "use basic Basic YWxhZGRpbjpvcGVuc2VzYW1l for auth=basic Basic dXNlcjpwYXNzd29yZA=="),
        ("mixed/keyword-word-before-bearer-token", "the bearer Bearer abcdefghijklmnopqrstuvwxyz0123456789"),
        // Found by cargo-fuzz: the assignment validator judged a value by its last word only, so a quoted
        // password ending in a short or repeated word passed as a placeholder and stayed in clear.
        ("assignment/quoted-password-ending-in-a-short-word", "DB_PASSWORD: 'hunter2 x' and password=\"c0rrect horse !!\""),
        // A password whose first word ends in `key` or `token` (`monkey`) was taken for an auth scheme and its
        // credential ("1") for a placeholder; a real scheme (`ShippoToken ${…}`) still introduces one.
        // A header's template credential cut before its `}` by the pattern went as a secret, the `}` left.
        ("authorization/template-cut-at-its-closing-brace", "authorization: ShippoToken ${SHIPPO_API_TOKEN} and {Authorization: Api-Key ${KEY}}"),
        ("assignment/password-word-ending-in-key-is-no-scheme", "password: 'monkey 1' and DB_PASSWORD=\"hotkey x\" but Authorization: ShippoToken $SHIPPO_TOKEN"),
        // Found by cargo-fuzz: a value running from `${` to a `}` with spaces between was taken for a
        // template (a placeholder) and left in clear.
        ("assignment/braces-around-a-phrase-are-no-template", "db_password=\"${correct horse battery staple}\" but password=${DB_PASSWORD} stays"),
        // Found by cargo-fuzz: a template (a placeholder, refused) whose closing braces a URL token ran past
        // was left in clear; once the token was a marker, a second pass took the rest for a secret.
        ("assignment/template-whose-end-a-token-runs-past", "secret={{ vault.key&token=9f2Kq7LmZ3xW}} and password={{ vault.db }} stays"),
        // Found by cargo-fuzz: an assignment whose key sat in URL userinfo was clipped at the `@` and dropped,
        // and the assignments its value had hidden were never looked at.
        ("url/userinfo-key-hides-no-later-assignment", "fetch https://x-access-token:abcd1235efgh@github.com/org/repo/client_secret\": \"s3cr3tValue99xyz\" failed"),
        // Found by cargo-fuzz: the same, with the URL glued to a secret before it: that marker's word hid the
        // URL marker's, which looks at the rest of the line.
        ("url/userinfo-key-glued-to-a-secret-before-it", "Pwd=vb'https://token:2x9@api.example.com/client_secret: s3cr3tValue99xyz failed"),
        // Found by cargo-fuzz: a token glued to the front of URL userinfo named the span (`stripe-key`), and the
        // span's name, not its end at the `@`, decided whether the rest of the line was read again.
        ("url/userinfo-begun-by-a-token", "fetch https://sk_test_BQokikJOvBiI2HlWgH4olfQ2x-access-token:abd123h@github.com/org/repo/client_secret\": \"s3cr3tValue99xyz\" failed"),
        // Found by cargo-fuzz: a `}` inside a URL token ended a `{{ … }}` template early; once the token was a
        // marker, a second pass read the template to its `}}` and redacted it.
        ("assignment/brace-inside-a-token-does-not-end-a-template", "secret={{ vault.key&token=9f2Kq7LmZ3xW}x and password={{ vault.db }} stays"),
        // Found by cargo-fuzz: an e-mail glued to a PEM block; the e-mail's word hid the lines the block's
        // marker joined, which a second pass then read as a JS stack frame.
        ("mixed/block-glued-to-an-email-in-a-frame-line", "    at /5@g.co-----BEGINPRIVATE KEY-----\n=:5"),
        ("assignment/unterminated-token-value-then-password", "{\"authToken\": \"0ef82b15fc467fe93e81dd58a0c1f9a5 DB_PASSWORD: 'hunter2 x"),
        // Issue 25: lines that were redacted wrongly, each left as it is now.
        ("benign/ssh-targets-are-no-email", "fatal: Could not read from remote repository git@github.com:org/repo.git; ssh -p 2222 deploy@bastion.example.com: Permission denied"),
        ("benign/home-in-a-url-path-or-deeper-in-a-path", "GET https://shop.example.com/home/products/42 returned 404; pip cache at /tmp/build/home/.cache/pip"),
        ("benign/version-shaped-like-an-address", "upgraded to version 10.2.1.5 (pkg==10.2.1.5)"),
        ("benign/a-word-about-a-password", "login failed: password: incorrect"),
        ("benign/begin-line-then-a-log-line", "-----BEGIN PRIVATE KEY-----\n2026-11-21 10:04:12 INFO server started on :8080\n"),
        ("benign/ordinary-names-of-keys-and-tokens", "cache_key=user:42:profile primary_key=order_items_pkey next_page_token=CiAKGjBp token_count=5120 AccountSid=AC3577aa6c55e0d19d3572186e5761b152"),
        // Issue 25: shapes that were missed.
        ("missed/url-credentials-with-an-empty-user", "redis.exceptions.AuthenticationError: redis://:Zq8vR2mXw4Lk@cache.internal:6379/0"),
        ("missed/cookies-and-session-cookies", "> Cookie: theme=dark; sid=Zq8vR2mXw4LkP0aB\n< Set-Cookie: laravel_session=eyJpdiI6Ik1xY2x; Path=/\nconnect.sid=s%3AZq8vR2mXw4LkP0aB9f2c"),
        ("missed/secret-named-keys-in-reprs", "KeyError: {'db_pass': 'Xq83-bvT9', 'user': 'app'} Settings { smtp_pass: \"hunter2\" }"),
        ("missed/environment-dump-names", "APP_SALT=Zq2Lw8xRt5Vn\nJWT_SIGNING_KEY=k3j5h2l1m9n8b7v6\nSECRET_KEY_BASE=9f2c0d7e41b86a53f0c1\nSMTP_PASS=hunter2\nADAFRUIT_IO_KEY=6ab2c7fd04e1a93f58b2d07c1e4a9f30"),
        ("missed/basic-and-registry-credentials", "> Authorization: Basic ZGVwbG95OmMwcnJlY3QtaDByc2U= {\"auths\":{\"ghcr.io\":{\"auth\":\"ZGVwbG95OmMwcnJlY3Q=\"}}}"),
        ("missed/netrc-and-kubeconfig", "machine example.com login bob password hunter2\nusers:\n- name: admin\n  user:\n    token: 7a3f9c2e1b4d8a6f0c5e9b2d"),
        ("missed/webhook-urls", "POST https://hooks.slack.com/services/T024BE7LD/B08ABCDEF12/XyZ1234567890abcdefGHIJK; POST https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01; POST https://acme.webhook.office.com/webhookb2/a@b/IncomingWebhook/8411117bab91a33121a7a745d02601b7/c"),
        ("missed/signed-url-parameters", "GET /a.tgz?X-Amz-Security-Token=IQoJb3JpZ2luX2VjEJr8&X-Amz-Signature=f0e1d2c3b4a59687 and /c/b?sv=2022-11-02&sig=ab%2Bcd%3D12efGH34"),
        ("missed/raw-hex-private-keys", "PRIVATE_KEY=0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318; cast send --private-key 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"),
        ("missed/home-in-escaped-windows-paths-and-tilde", "{\"path\":\"C:\\\\Users\\\\alice\\\\AppData\"} open ~bob/.ssh/id_rsa failed"),
        ("missed/us-ssn", "identity check failed for applicant SSN 123-45-6789"),
        ("missed/value-after-its-name", "2026-11-21 10:04:12,118 ERROR Algolia rejected algolia_api_key 7ecd2a8183c77776410ba93c8722bc0d: 401; invalid ENV_TOKEN for Acme: 'Zq8vR2mXw4LkP0aB9f2c'"),
        ("missed/database-errors", "DETAIL:  Key (api_key)=(8e4c3fd8b2be96f295d6b16850c9de0c) already exists.\n(1062, \"Duplicate entry 'Xq83bvT9Lm2Kp7Wz4Ns6' for key 'credentials.uq_twitter_api_secret'\")"),
        ("missed/pem-printed-in-pieces", "{\n  tlsKey: '-----BEGIN EC PRIVATE KEY-----\\n' +\n    'MHcCAQEEIdCKtB+0SQQlfawHJUb1yb8FPv4dudBHFJSg05IMAdU5SB7uG6gGkvw1\\n' +\n    '-----END EC PRIVATE KEY-----',\n}"),
        // Issue 25: evasion. Found on the folded text, redacted as written.
        ("evasion/homoglyph-in-a-keyword", "p\u{430}ssword=hunter2 and Auth\u{43e}rization: Bearer abcDEF123456ghiJKL"),
        ("evasion/full-width-keyword-and-token", "\u{ff50}\u{ff41}\u{ff53}\u{ff53}\u{ff57}\u{ff4f}\u{ff52}\u{ff44}=hunter2 key \u{ff21}\u{ff2b}\u{ff29}\u{ff21}R6QMW4WXFOGO6MVN"),
        ("evasion/zero-width-inside-keyword-and-token", "pass\u{200b}word=hunter2 token ghp_u8jzPde0IgxLd6GncfB\u{200b}AepfJBd0Kh8oOOL8d ok"),
    ] {
        cases.push(case(name, "redact", json!({"text": text})));
    }
    cases.push(case("env/secret-looking-name", "redact", json!({"text": "connect with hunter2-hunter2 failed", "env": [["DB_PASSWORD", "hunter2-hunter2"]]})));
    cases.push(case(
        "env/ordinary-name-ignored",
        "redact",
        json!({"text": "HOME is /srv/data/app", "env": [["APP_HOME", "/srv/data/app"]]}),
    ));
    cases.push(case(
        "env/short-value-ignored",
        "redact",
        json!({"text": "value abc here", "env": [["API_KEY", "abc"]]}),
    ));
    // Issue 25: an environment value that could be no secret (a word, a host) is not redacted everywhere.
    cases.push(case(
        "env/ordinary-values-ignored",
        "redact",
        json!({"text": "could not connect to postgres on localhost with Xq83-bvT9-Lm2K", "env": [["PGPASSWORD", "postgres"], ["REDIS_PASSWORD", "localhost"], ["API_TOKEN", "Xq83-bvT9-Lm2K"]]}),
    ));
    json!({"description": "redact: every catalogue rule's examples (positive and negative), benign look-alikes, and caller-supplied environment values.", "cases": cases})
}
