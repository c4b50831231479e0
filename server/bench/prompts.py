"""The prompts `beecode bench` sends: the seed's coding and prose set, code edits, a quick smoke.

Short and concrete on purpose: local models prefill slowly, and the bench measures decoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.bench.agent_history import AGENT_MAX_TOKENS, AGENT_TEMPERATURE, history


@dataclass(frozen=True)
class BenchPrompt:
    name: str  # short id used in tables, file names and the JSON summary
    text: str
    max_tokens: int
    temperature: float
    # A whole conversation to continue (the agent suite); empty: `text` as the one user message.
    messages: tuple[dict[str, Any], ...] = ()


SEED_TEMPERATURE = 0.7
SEED_MAX_TOKENS = 1200

# The seed experiment: three coding prompts and one prose prompt, since acceptance differs by task.
SEED_PROMPTS: tuple[BenchPrompt, ...] = (
    BenchPrompt(
        "task-store",
        "Write a Python module `task_store.py` with a TaskStore class that adds, completes, "
        "lists and deletes tasks (id, title, done, created_at) and saves them to a JSON file. "
        "Then write 5 pytest tests for it.",
        SEED_MAX_TOKENS,
        SEED_TEMPERATURE,
    ),
    BenchPrompt(
        "kv-report",
        "Write a Python module `kv_report.py` that reads `key=value` lines from a text file, "
        "skips blank lines and comments, counts keys, and prints a report of the 10 most common "
        "keys with their values. Then write 5 pytest tests for it.",
        SEED_MAX_TOKENS,
        SEED_TEMPERATURE,
    ),
    BenchPrompt(
        "linked-list",
        "Write a Python module `linked_list.py` with a doubly linked list class supporting append, "
        "prepend, remove, find, reverse, len() and iteration. Then write 5 pytest tests for it.",
        SEED_MAX_TOKENS,
        SEED_TEMPERATURE,
    ),
    BenchPrompt(
        "moe-blog",
        "Write a blog post of about 600 words explaining Mixture of Experts language models: "
        "what experts and the router are, why only a few experts run per token, and the "
        "trade-offs in memory and speed.",
        SEED_MAX_TOKENS,
        SEED_TEMPERATURE,
    ),
)

# A 46-line file for the code-editing workload of cpu-rig.md §7: the answer mostly copies its input,
# which is where draftless n-gram speculation pays.
ORDERS_PY = '''\
"""Orders: line items, discounts and totals."""

from dataclasses import dataclass, field


@dataclass
class LineItem:
    sku: str
    quantity: int
    unit_price: float


@dataclass
class Order:
    customer: str
    items: list[LineItem] = field(default_factory=list)
    discount: float = 0.0

    def add(self, sku: str, quantity: int, unit_price: float) -> None:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self.items.append(LineItem(sku, quantity, unit_price))


def compute_subtotal(order: Order) -> float:
    return sum(item.quantity * item.unit_price for item in order.items)


def compute_total(order: Order, tax_rate: float = 0.2) -> float:
    subtotal = compute_subtotal(order)
    discounted = subtotal * (1 - order.discount)
    return round(discounted * (1 + tax_rate), 2)


def format_receipt(order: Order) -> str:
    lines = [f"Customer: {order.customer}"]
    for item in order.items:
        cost = item.quantity * item.unit_price
        lines.append(f"{item.sku:10} x{item.quantity:3} {cost:8.2f}")
    lines.append(f"Total: {compute_total(order):.2f}")
    return "\\n".join(lines)


if __name__ == "__main__":
    order = Order("Ada")
    order.add("PEN", 3, 1.5)
    print(format_receipt(order))
'''

EDIT_MAX_TOKENS = 500

EDIT_PROMPTS: tuple[BenchPrompt, ...] = (
    BenchPrompt(
        "rename",
        "Rename compute_total to calculate_total and output the whole file.\n\n"
        f"```python\n{ORDERS_PY}```",
        EDIT_MAX_TOKENS,
        0.0,
    ),
    BenchPrompt(
        "docstrings",
        "Add a one-line docstring to every function and output the whole file.\n\n"
        f"```python\n{ORDERS_PY}```",
        EDIT_MAX_TOKENS,
        0.0,
    ),
)

# --quick: one short copy-heavy prompt, so n-gram modes draft even within a few dozen tokens.
QUICK_PROMPTS: tuple[BenchPrompt, ...] = (
    BenchPrompt(
        "quick-rename",
        "Rename add to plus and output the whole file.\n\n```python\n"
        "def add(a, b):\n    return a + b\n\n\n"
        "def add_all(values):\n    total = 0\n    for value in values:\n"
        "        total = add(total, value)\n    return total\n```",
        64,
        0.0,
    ),
)


def agent_prompts(prefix: str, char_budgets: tuple[int, ...]) -> tuple[BenchPrompt, ...]:
    """One continuation per depth of the same growing tool-using history (agent_history)."""
    return tuple(
        BenchPrompt(f"{prefix}-{i}", "", AGENT_MAX_TOKENS, AGENT_TEMPERATURE, history(budget))
        for i, budget in enumerate(char_budgets, 1)
    )


# Characters of tool output before the continuation: `agent` stays inside the tiny profile's 8K
# context (about 1K to 6K tokens); `agent-long` runs to about 25K tokens, for 32K GPU profiles.
AGENT_PROMPTS = agent_prompts("agent", (3_000, 7_000, 11_000, 15_000, 19_000))
AGENT_LONG_PROMPTS = agent_prompts("long", (8_000, 24_000, 48_000, 80_000))

SUITES: dict[str, tuple[BenchPrompt, ...]] = {
    "seed": SEED_PROMPTS,
    "edit": EDIT_PROMPTS,
    "quick": QUICK_PROMPTS,
    "agent": AGENT_PROMPTS,
    "agent-long": AGENT_LONG_PROMPTS,
}
