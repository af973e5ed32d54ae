"""Shared fixtures live in plugin modules, one per real part (Redis, the vLLM engine, ...); fixtures_markers
classifies the tests (vllm/slow) from the fixtures they use and spreads the full run over the cores."""

pytest_plugins = ["tests.fixtures_redis", "tests.fixtures_engine", "tests.fakes.fixtures", "tests.fixtures_markers"]
