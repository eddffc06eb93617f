"""neardup.explain against `neardup compare --explain --json [--base]`:
the same coverage, passages and words shared outside a base text."""
import json

import neardup

PROMPT = "Write about the town where you grew up and what you liked about it."
A = (PROMPT + " I grew up in a small town by the sea where the harbour smelled of tar "
     "and every morning the boats went out before dawn.")
B = (PROMPT + " My town was by the sea where the harbour smelled of tar and every "
     "morning the boats went out before dawn, as my father's did.")


def test_explain_is_the_clis(cli, tmp_path):
    a, b, base = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "prompt.txt"
    a.write_text(A, encoding="utf-8")
    b.write_text(B, encoding="utf-8")
    base.write_text(PROMPT, encoding="utf-8")
    want = json.loads(cli("compare", "--explain", "--json", "-k", "3", a, b))
    got = neardup.explain(A, B, k=3)
    assert got["coverage"] == want["coverage"]
    assert got["passages"] == want["passages"]
    assert "shared_outside_base" not in got
    want = json.loads(cli("compare", "--explain", "--json", "-k", "3", "--base", base, a, b))
    got = neardup.explain(A, B, k=3, base=[PROMPT])
    assert got["shared_outside_base"] == want["shared_outside_base"]
    # The prompt's words are shared, but not outside the base.
    assert got["shared_outside_base"]["shared_words_a"] < got["coverage"]["shared_words_a"]
    assert got["coverage"] == want["coverage"]
