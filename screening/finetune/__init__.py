"""LoRA fine-tuning of the screening model on its own task (issue 19).

The bundled 135M model writes reasons such as "10.1%" or "公式评分" and never reads an announcement for
risk; the rules make every row right regardless, but the reasons read as broken. This package builds a
training set whose answers are right by construction (the rule verdict, a reason naming the decisive
figure, an escalation naming a planted risk announcement), trains a LoRA adapter with ``peft`` on
transformers' ``Trainer``, and measures base vs adapter through the real pipeline (vLLM + Screener).

Nothing here is imported by the product at run time: the engines only read the adapter folder.
Heavy imports (torch, transformers, peft, vllm) happen inside the functions that need them.
"""

from pathlib import Path

SHIPPED_ADAPTER = Path(__file__).resolve().parent / "adapter"
