"""The Python redactors MCP gateway users run, driven by bench/rust/redaction_peers.rs (a benchmark, never a
dependency; installed by `./scripts/bench.sh redaction-peers` into target/bench/redaction-peers-venv from
bench/peers/requirements-redaction.txt, pinned).

Each peer is run the way its users run it, as a function from text to redacted text:

- cpex-secrets-detection, cpex-pii-filter, cpex-encoded-exfil-detection (IBM ContextForge's Rust-backed
  plugins): their plugin manifests' default configuration, with redaction on (the manifests block by default;
  a gateway that redacts sets `redact: true`), called on the whole text as a plugin is on a tool result. The
  encoded-exfil plugin's scan limit is raised to 5 MB (its maximum) so that the 1 MB logs are scanned at all.
- detect-secrets as LiteLLM's secret-detection guardrail drives it: every plugin detect-secrets ships (the
  entropy ones at their default limits), the text written to a file and scanned with the default filters, every
  secret value found replaced with `[REDACTED]`.
- Presidio: presidio-analyzer's predefined recognizers and presidio-anonymizer-style replacement of what they
  find. Its NER model (spaCy's en_core_web_lg) is not on the registries this machine reaches, so the analyzer runs
  with an NLP engine that finds no names or places: the pattern recognizers (cards, e-mail, IBAN, IPs, SSNs, ...)
  are the whole of what it catches here.

Protocol, one JSON document per line on stdin and stdout:
  -> {"op": "peers"}                                   <- {"peers": [name, ...]}
  -> {"op": "redact", "peer": p, "in": path, "out": p2} <- {"seconds": s}   (JSON lines {"text": ...} each way)
  -> {"op": "time", "peer": p, "path": log}             <- {"seconds": s}   (one redaction of the whole file)
"""

import json
import os
import sys
import time


def manifest_defaults(package):
    import yaml

    module = __import__(package)
    with open(os.path.join(module.__path__[0], "plugin-manifest.yaml")) as f:
        return yaml.safe_load(f)["default_configs"]


def cpex_secrets():
    from cpex_secrets_detection.secrets_detection_rust import py_scan_container

    config = manifest_defaults("cpex_secrets_detection")
    config["redact"] = True
    config["block_on_detection"] = False
    return lambda text: py_scan_container(text, config)[1]


def cpex_pii():
    from cpex_pii_filter.pii_filter_rust import PIIDetectorRust

    detector = PIIDetectorRust(manifest_defaults("cpex_pii_filter"))

    def redact(text):
        found = detector.detect(text)
        return detector.mask(text, found) if found else text

    return redact


def cpex_exfil():
    from cpex_encoded_exfil_detection.encoded_exfil_detection import EncodedExfilDetectorConfig
    from cpex_encoded_exfil_detection.encoded_exfil_detection_rust import ExfilDetectorEngine

    config = manifest_defaults("cpex_encoded_exfil_detection")
    config.update(redact=True, block_on_detection=False, log_detections=False, max_scan_string_length=5_000_000)
    engine = ExfilDetectorEngine(EncodedExfilDetectorConfig(**config))
    return lambda text: engine.scan(text)[1]


def detect_secrets():
    import tempfile

    from detect_secrets import SecretsCollection
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import transient_settings

    # LiteLLM's secret-detection guardrail: every plugin (the entropy ones at their default limits), the text
    # written to a file and scanned with detect-secrets' default filters, each secret value found replaced.
    limits = {"Base64HighEntropyString": 4.5, "HexHighEntropyString": 3.0}
    plugins = []
    for cls in get_mapping_from_secret_type_to_class().values():
        plugin = {"name": cls.__name__}
        if cls.__name__ in limits:
            plugin["limit"] = limits[cls.__name__]
        plugins.append(plugin)
    config = {"plugins_used": plugins}
    work = tempfile.mkdtemp(prefix="redaction-peers-")

    def redact(text):
        path = os.path.join(work, "message.txt")
        with open(path, "w") as f:
            f.write(text)
        secrets = SecretsCollection()
        with transient_settings(config):
            secrets.scan_file(path)
        for file in secrets.files:
            for found in secrets[file]:
                if found.secret_value:
                    text = text.replace(found.secret_value, "[REDACTED]")
        return text

    return redact


def presidio():
    # Presidio's e-mail recognizer checks domains against the public suffix list, which tldextract would
    # download: it uses the copy it ships instead.
    import tldextract.tldextract as tld

    tld.TLD_EXTRACTOR = tld.TLDExtract(suffix_list_urls=())
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.nlp_engine import NlpArtifacts, NlpEngine

    class NoModel(NlpEngine):
        """An NLP engine that finds no entities: no spaCy model can be installed here."""

        def load(self):
            pass

        def is_loaded(self):
            return True

        def process_text(self, text, language):
            return NlpArtifacts(
                entities=[], tokens=[], tokens_indices=[], lemmas=[], nlp_engine=self, language=language
            )

        def process_batch(self, texts, language, batch_size=1, n_process=1, **kwargs):
            for text in texts:
                yield text, self.process_text(text, language)

        def is_stopword(self, word, language):
            return False

        def is_punct(self, word, language):
            return False

        def get_supported_entities(self):
            return []

        def get_supported_languages(self):
            return ["en"]

    registry = RecognizerRegistry()
    registry.load_predefined_recognizers(languages=["en"])
    analyzer = AnalyzerEngine(nlp_engine=NoModel(), registry=registry, supported_languages=["en"])

    def redact(text):
        spans = sorted((r.start, r.end, r.entity_type) for r in analyzer.analyze(text=text, language="en"))
        out, at = [], 0
        for start, end, kind in spans:
            if start < at:  # overlapping results: the earlier one stands, as the anonymizer merges them
                continue
            out.append(text[at:start])
            out.append(f"<{kind}>")
            at = end
        out.append(text[at:])
        return "".join(out)

    return redact


PEERS = {
    "cpex-secrets-detection 0.3.14": cpex_secrets,
    "cpex-pii-filter 0.3.9": cpex_pii,
    "cpex-encoded-exfil-detection 0.3.10": cpex_exfil,
    "detect-secrets 1.5.0": detect_secrets,
    "presidio-analyzer 2.2.366": presidio,
}


def main():
    loaded = {}
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        if op == "peers":
            reply = {"peers": list(PEERS)}
        else:
            name = request["peer"]
            if name not in loaded:
                loaded[name] = PEERS[name]()
            redact = loaded[name]
            if op == "redact":
                with open(request["in"]) as f:
                    texts = [json.loads(row)["text"] for row in f]
                start = time.perf_counter()
                outputs, failures = [], 0
                for t in texts:
                    # A peer that fails on a text (cpex-encoded-exfil-detection panics on some) returns it as
                    # it was: counted, and what was left in it is judged as any output is.
                    try:
                        outputs.append(redact(t))
                    except BaseException:  # noqa: BLE001 (pyo3's PanicException is a BaseException)
                        failures += 1
                        outputs.append(t)
                seconds = time.perf_counter() - start
                with open(request["out"], "w") as f:
                    for o in outputs:
                        f.write(json.dumps({"text": o if isinstance(o, str) else str(o)}) + "\n")
                reply = {"seconds": seconds, "failures": failures}
            elif op == "time":
                with open(request["path"]) as f:
                    text = f.read()
                start = time.perf_counter()
                redact(text)
                reply = {"seconds": time.perf_counter() - start}
            else:
                reply = {"error": f"unknown op {op}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
