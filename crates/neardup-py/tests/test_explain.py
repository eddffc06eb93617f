"""neardup.explain against `neardup compare --explain --json [--base]`:
the same coverage, passages and words shared outside a base text."""
import json

import pytest

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


ZH_PROMPT = "请写一写你长大的城市，以及你喜欢它的什么地方。"
ZH_A = ZH_PROMPT + "我在一个海边的小城长大，港口里有柏油的味道，每天早上船在天亮前出海。"
ZH_B = ZH_PROMPT + "我的城市在海边，港口里有柏油的味道，每天早上船在天亮前出海，我父亲的船也是。"


def script_files(tmp_path):
    a, b, base = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "prompt.txt"
    a.write_text(ZH_A, encoding="utf-8")
    b.write_text(ZH_B, encoding="utf-8")
    base.write_text(ZH_PROMPT, encoding="utf-8")
    return a, b, base


def test_explain_of_script_words_is_the_clis(cli, tmp_path):
    """words="script": passages of single characters, as `compare --explain
    --words script` finds them; under space words each text is one word and
    shares nothing."""
    a, b, _ = script_files(tmp_path)
    want = json.loads(cli("compare", "--explain", "--json", "--words", "script", a, b))
    got = neardup.explain(ZH_A, ZH_B, words="script")
    assert got["coverage"] == want["coverage"]
    assert got["passages"] == want["passages"]
    assert got["passages"] and got["coverage"]["words_a"] == len(ZH_A)
    assert neardup.explain(ZH_A, ZH_B)["passages"] == []
    # The base text's words are script words too: the prompt's characters
    # are shared, but not outside it.
    outside = neardup.explain(ZH_A, ZH_B, base=[ZH_PROMPT], words="script")["shared_outside_base"]
    assert outside["words_a"] == len(ZH_A) and outside["base_words_a"] > 10
    assert 0 < outside["shared_words_a"] < got["coverage"]["shared_words_a"]


def test_shared_outside_base_of_script_words_is_the_clis(cli, tmp_path):
    a, b, base = script_files(tmp_path)
    want = json.loads(cli("compare", "--explain", "--json", "--words", "script", "--base", base,
                          a, b))
    got = neardup.explain(ZH_A, ZH_B, base=[ZH_PROMPT], words="script")
    assert got["shared_outside_base"] == want["shared_outside_base"]
