"""Shared fixtures live in plugin modules, one per real part (Redis, the vLLM engine, ...)."""

pytest_plugins = ["tests.fixtures_redis", "tests.fixtures_engine", "tests.fakes.fixtures"]
