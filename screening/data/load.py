"""Input to a Pool: one place that turns a file or a typed code list into the items to screen.

The CLI, the bot's upload and command handlers and the digest all come through here, so a file
is parsed, filled from the local universe and (for the CLI) merged back into it the same way
everywhere, and a typed token resolves to a code or a name the same way everywhere.
"""

from __future__ import annotations

from pathlib import Path

from screening.config import Settings
from screening.data.codes import CodeError, normalise_code
from screening.data.pool import read_pool
from screening.data.synthetic import generate_market
from screening.data.universe import SEED_AS_OF, Universe, norm_name, read_stock_csv
from screening.models import InputProblem, Pool, PoolItem, PoolRejected, StockInput

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


def default_universe(settings: Settings) -> Universe:
    """The configured universe, seeded on first use (see ``ensure_default_universe``)."""
    return ensure_default_universe(settings.universe_path(), EXAMPLES)


def load_file(path: Path, settings: Settings, universe: Universe, *, source_name: str | None = None,
              update_universe: bool = False) -> Pool:
    """Parse a pool file, then fill what it lacks from the universe; the file's own figures win.

    ``update_universe`` merges the file's figures into the universe and saves it (the CLI does;
    a chat upload does not: one user's file must not change what other users' jobs see).
    """
    pool = read_pool(path, settings.input, source_name)
    given = [item.stock for item in pool.items if item.stock is not None]
    for item in pool.items:
        if item.stock is not None:
            item.stock = universe.fill(item.stock)
    if update_universe and given:
        universe.update(given)
        universe.save()
    return pool


def load_pool(inputs: list[str], settings: Settings, update_universe: bool = True) -> Pool:
    """A file becomes a pool (filled from, and then updating, the universe); codes resolve against it."""
    universe = default_universe(settings)
    if len(inputs) == 1 and Path(inputs[0]).is_file():
        return load_file(Path(inputs[0]), settings, universe, update_universe=update_universe)
    if len(inputs) == 1 and ("." in inputs[0] and not inputs[0][:6].isdigit()) and "/" in inputs[0]:
        raise PoolRejected(f"{inputs[0]}: no such file")
    return pool_from_codes(inputs, universe)


def _resolve(token: str, universe: Universe) -> tuple[str | None, StockInput | None, str | None]:
    """(code, stock, error) for one typed token: a code in any accepted form, or a stock name."""
    try:
        code = normalise_code(token)
    except CodeError as exc:
        matches = universe.find_by_name(token)
        if len(matches) == 1:
            return matches[0].code, matches[0], None
        if len(matches) > 1:
            shown = "、".join(f"{m.name}({m.code})" for m in matches[:5])
            more = f" 等{len(matches)}只" if len(matches) > 5 else ""
            return None, None, f"name {token!r} matches several stocks: {shown}{more}; give the code"
        if any(ch.isdigit() for ch in token):
            return None, None, str(exc)
        return None, None, f"not an A-share code and no stock named {token!r} in the local universe"
    stock = universe.get(code)
    # A valid code the universe does not know: code only; the rules later mark what is missing.
    return code, stock if stock is not None else StockInput(code=code), None


def pool_from_codes(tokens: list[str], universe: Universe, source: str = "command") -> Pool:
    """One PoolItem per typed token, in order: resolved stock, or a per-item error.

    Nothing is dropped: an invalid token or a repeat of an earlier stock becomes a failed item
    that says why, so the reply accounts for every token the user typed.
    """
    pool = Pool(source=source)
    first_seen: dict[str, tuple[int, str]] = {}
    for index, token in enumerate(tokens):
        code, stock, error = _resolve(token, universe)
        if code is not None and code in first_seen:
            first_index, first_token = first_seen[code]
            error = f"duplicate of {code} (item {first_index + 1}, {first_token!r})"
            stock = None
        if error is not None:
            problem = InputProblem(source=source, message=error, value=token)
            pool.items.append(PoolItem(index=index, raw_code=token, error=problem))
            continue
        assert code is not None
        first_seen[code] = (index, token)
        pool.items.append(PoolItem(index=index, raw_code=token, stock=stock))
    return pool


def ensure_default_universe(path: Path, examples_dir: Path) -> Universe:
    """Load the universe at ``path``; on first run seed it so common codes resolve at once.

    The seed is examples/sample_pool.csv (illustrative figures for well-known names) plus a
    SYNTHETIC market of 5,400 stocks (seed 0). Synthetic stocks that share a code or a name
    with the sample are left out, so 600519.SH is 贵州茅台 and not an invented company.
    Seeded rows carry as_of 1970-01-01: any real upload is newer and replaces them.
    """
    path = Path(path)
    if path.exists():
        return Universe.load(path)
    sample_file = Path(examples_dir) / "sample_pool.csv"
    sample = [s for s, _ in read_stock_csv(sample_file)] if sample_file.exists() else []
    sample_codes = {s.code for s in sample}
    sample_names = {norm_name(s.name) for s in sample if s.name}
    synthetic = [
        s for s in generate_market(5400, 0)
        if s.code not in sample_codes and norm_name(s.name or "") not in sample_names
    ]
    universe = Universe(path)
    universe.update(synthetic, as_of=SEED_AS_OF)
    universe.update(sample, as_of=SEED_AS_OF)
    universe.save()
    return universe
