"""What ``verify-model`` found: one finding per check (doctor's ``Finding``, its fix line unused here), and
the parity of each compared prompt.

Apart from the checks so that the checksum and parity modules can both write into one report without
importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from screening.ops.findings import Finding, Level


@dataclass
class StepDiff:
    step: int
    vllm_token: str
    hf_token: str
    gap: float  # transformers' best logit minus its logit for vLLM's token
    tolerated: bool


@dataclass
class PromptParity:
    code: str
    prompt_tokens: int
    template_match: bool
    steps: int
    matched: int
    diffs: list[StepDiff] = field(default_factory=list)
    max_logprob_diff: float = 0.0
    vllm_text: str = ""
    guided: str = ""


@dataclass
class Report:
    model: str
    findings: list[Finding] = field(default_factory=list)
    parity: list[PromptParity] = field(default_factory=list)

    def add(self, level: Level, check: str, message: str) -> None:
        self.findings.append(Finding(level, check, message))

    @property
    def ok(self) -> bool:
        return not any(f.level == "fail" for f in self.findings)

    def failed(self, check: str) -> bool:
        return any(f.level == "fail" and f.check == check for f in self.findings)

    def render(self) -> str:
        mark = {"ok": "ok  ", "info": "info", "warn": "WARN", "fail": "FAIL"}
        lines = [f"verify-model {self.model}"]
        lines += [f"{mark[f.level]}  {f.check:<9} {f.message}" for f in self.findings]
        lines.append("\nverify-model: " + ("PASS" if self.ok else "FAIL"))
        return "\n".join(lines)


