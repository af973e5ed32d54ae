"""ashare-screener: screen Chinese A-share stock pools with a local LLM and rules that overrule it.

The package is read top to bottom as the flow: data/ (input and the local universe), screen/
(rules, prompt, batcher, pipeline), engines/ (vLLM, OpenAI-compatible, rules), queue/ (Redis jobs
and the GPU worker), output/ (JSON, CSV, XLSX, chart, chat text), digest/ and push/ (the morning
push); ops/ stands beside them (doctor, verify-model, local Redis, benches).
"""

import os

# stdout carries only the output asked for (a JSON array must parse): vLLM logs to stdout unless told
# otherwise, in this process and in the engine processes it spawns, which inherit the environment
os.environ.setdefault("VLLM_LOGGING_STREAM", "ext://sys.stderr")
