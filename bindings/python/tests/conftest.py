import os
import tempfile

# Tests never read or write the user's cache, and never scrub the test runner's own environment.
os.environ.setdefault("JSONRPC_ERRORS_CACHE_DIR", os.path.join(tempfile.gettempdir(), "jsonrpc-errors-pytest-cache"))
os.environ["JSONRPC_ERRORS_NO_ENV"] = "1"
