"""Parity, the third check of ``verify-model``: transformers (the reference) vs the vLLM engine.

For three sample stocks (and, with an adapter, its card's first held-out prompts) vLLM generates greedily,
unguided, with top-5 logprobs; transformers runs one forward pass over the prompt plus vLLM's tokens
(teacher forcing) and its top-1 is compared with vLLM's token at every step. A different token counts only
as a near-tie: when transformers' logit for vLLM's token is within the tolerance of its own best (bf16
rounding flips such ties). screening/ops/verify_model.py says why tokens and not JSON fields are compared.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from screening.models import StockInput
from screening.ops.verify_report import PromptParity, Report, StepDiff

SAMPLE_STOCKS = (
    StockInput(code="600519.SH", name="贵州茅台", industry="白酒", pe_ttm=28.5, roe=31.2, eps=59.5,
               report_text="2024年营业收入1741亿元,同比增长15.7%;归母净利润862亿元,毛利率91.9%。"),
    StockInput(code="000004.SZ", name="*ST国华", industry="软件开发", pe_ttm=-35.0, roe=-12.4, eps=-0.4,
               report_text="公司连续两年亏损,审计机构出具保留意见,存在退市风险。"),
    StockInput(code="300750.SZ", name="宁德时代", industry="电池", pe_ttm=22.1, roe=22.7, eps=11.6,
               report_text="动力电池装机量全球第一,储能业务高增长,海外工厂投产。"),
)


# ---------------------------------------------------------------------------------- parity
def sample_messages(encode: Callable[[str], list[int]], decode: Callable[[list[int]], str],
                    max_report_tokens: int = 600) -> list[tuple[str, list[dict]]]:
    from screening.screen.prompt import build_messages
    from screening.screen.rules import assess

    out = []
    for stock in SAMPLE_STOCKS:
        v = assess(stock)
        messages, _ = build_messages(stock, max_report_tokens, (v.risk, v.score, v.reason), encode, decode)
        out.append((stock.code, messages))
    return out


def adapter_messages(folder: Path, adapter: Path, n: int = 3) -> list[tuple[str, list[dict], StockInput]]:
    """The first held-out prompts of the adapter's model card, rendered as the product renders them."""
    from screening.config import EngineSettings
    from screening.finetune.card import read_card
    from screening.finetune.dataset import DataSpec, TokenizerEngine, build_stocks, prepare

    card = read_card(adapter)
    settings = EngineSettings(**card["engine"])
    stocks = build_stocks(DataSpec(**card["data"]))["heldout"][:n]
    return [(e.stock.code, e.messages, e.stock) for e in prepare(stocks, TokenizerEngine(str(folder)), settings)]


def check_parity(folder: Path, engine: Any, report: Report, steps: int = 8, tolerance: float = 0.5,
                 max_logprob_diff: float = 1.0, adapter: Path | None = None) -> None:
    """transformers (reference, float32) vs the vLLM engine, teacher-forced on vLLM's greedy tokens.

    With an adapter, transformers applies it through peft and vLLM through the engine's LoRARequest, and
    the adapter's first held-out prompts are compared too.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from vllm import SamplingParams

    from screening.engines.base import EngineRequest

    if str(Path(getattr(engine, "model_path", engine.model_id)).resolve()) != str(folder.resolve()):
        report.add("warn", "parity", f"the engine runs {engine.model_id}, not {folder}")
    lora = getattr(engine, "lora_request", None)
    if adapter is not None and lora is None:
        report.add("fail", "parity", f"adapter {adapter} given, but the engine was built without it")
        return
    tok = AutoTokenizer.from_pretrained(folder)
    prompts = [(code, m, s) for (code, m), s in zip(
        sample_messages(lambda t: tok.encode(t, add_special_tokens=False), tok.decode), SAMPLE_STOCKS, strict=True)]
    if adapter is not None:
        prompts += adapter_messages(folder, adapter)
    params = SamplingParams(temperature=0.0, max_tokens=steps, logprobs=5, ignore_eos=True, seed=0)
    results = engine.llm.chat([m for _, m, _ in prompts], params, use_tqdm=False, lora_request=lora)
    guided = engine.generate([EngineRequest(code, m, 0, s) for code, m, s in prompts])
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    if adapter is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, str(adapter))
    model.eval()
    for (code, messages, _), res, g in zip(prompts, results, guided, strict=True):
        _compare(code, messages, res, g.text, tok, model, report, tolerance, max_logprob_diff)


def _compare(code: str, messages: list[dict], res: Any, guided: str, tok: Any, model: Any, report: Report,
             tolerance: float, max_logprob_diff: float) -> None:
    """One prompt: vLLM's greedy steps against transformers' top-1, then the guided answer's parse."""
    import torch

    from screening.engines.answer import parse_answer

    prompt_ids = list(res.prompt_token_ids or [])
    out_ids = list(res.outputs[0].token_ids)
    hf_prompt = tok.apply_chat_template(messages, tokenize=True, add_generation_prompt=True)
    if isinstance(hf_prompt, dict) or hasattr(hf_prompt, "keys"):
        hf_prompt = hf_prompt["input_ids"]
    pp = PromptParity(code, len(prompt_ids), list(hf_prompt) == prompt_ids, len(out_ids), 0,
                      vllm_text=tok.decode(out_ids), guided=guided)
    with torch.no_grad():
        logits = model(torch.tensor([prompt_ids + out_ids])).logits[0].float()
    logprobs = torch.log_softmax(logits, dim=-1)
    for k, v_tok in enumerate(out_ids):
        row = logits[len(prompt_ids) - 1 + k]
        hf_tok = int(row.argmax())
        v_lp = (res.outputs[0].logprobs or [{}] * len(out_ids))[k].get(v_tok)
        if v_lp is not None:
            diff = abs(float(logprobs[len(prompt_ids) - 1 + k, v_tok]) - float(v_lp.logprob))
            pp.max_logprob_diff = max(pp.max_logprob_diff, diff)
        if hf_tok == v_tok:
            pp.matched += 1
            continue
        gap = float(row[hf_tok] - row[v_tok])
        pp.diffs.append(StepDiff(k, tok.decode([v_tok]), tok.decode([hf_tok]), round(gap, 3), gap <= tolerance))
        if gap <= tolerance:
            pp.matched += 1
    report.parity.append(pp)
    hard = [d for d in pp.diffs if not d.tolerated]
    try:
        parse_answer(guided)
        parsed = "guided answer parses"
    except ValueError:
        parsed = "guided answer does NOT parse"
    line = (f"{code}: {pp.matched}/{pp.steps} greedy steps agree, max |Δlogprob| {pp.max_logprob_diff:.3f}; "
            f"vLLM {pp.vllm_text!r}; {parsed}")
    if hard:
        where = "; ".join(f"step {d.step}: vLLM {d.vllm_token!r} vs transformers {d.hf_token!r} (gap {d.gap})"
                          for d in hard)
        report.add("fail", "parity", f"{line}; differs at {where}")
    elif pp.max_logprob_diff > max_logprob_diff:
        report.add("fail", "parity", f"{line}; log-probabilities differ by more than {max_logprob_diff}")
    else:
        near = f" ({len(pp.diffs)} near-tie(s) within {tolerance})" if pp.diffs else ""
        report.add("ok", "parity", line + near)
    if not pp.template_match:
        report.add("fail", "parity", f"{code}: vLLM's prompt tokens differ from transformers' chat template "
                   f"({len(prompt_ids)} vs {len(hf_prompt)} tokens)")
    if parsed != "guided answer parses":
        report.add("fail", "parity", f"{code}: guided decoding returned unparsable JSON: {guided[:120]!r}")
