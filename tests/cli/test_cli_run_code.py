"""``dsh-tools run-code``: a TypeScript program through the full Code Mode pipeline (real Deno)."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import run_cli


def program(tmp_path: Path, source: str) -> str:
    path = tmp_path / "program.ts"
    path.write_text(source, encoding="utf-8")
    return str(path)


def test_program_chains_tools_and_prints_logs_and_value(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one two three\nfour\n")
    source = (
        "const entries = await tools.list_dir({});\n"
        'console.log("entries:", entries.length, entries.map((entry) => entry.kind).join(","));\n'
        'const counted: { words: number; lines: number } = await tools.count_words({ path: "notes.txt" });\n'
        "return [counted.words, counted.lines];\n"
    )
    result = run_cli(
        "run-code", program(tmp_path, source),
        "--tools", "dsh_tools.demo.tools.files", "--tools", "dsh_tools.demo.tools.text",
        "--dispatches", cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "entries: 2 file,file\n[4,2]\n"
    dispatched = result.stderr.splitlines()
    assert [line.split()[1] for line in dispatched] == ["list_dir", "count_words"]
    assert dispatched[0].startswith("run-code:code:1 list_dir [ok]")


def test_failing_program_exits_1_with_the_error_text(tmp_path: Path) -> None:
    source = 'await tools.list_dir({ path: "no-such-dir" });\n'
    result = run_cli("run-code", program(tmp_path, source), "--tools", "dsh_tools.demo.tools.files", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("Error: code run failed (exception)")
    assert "no such directory: no-such-dir" in result.stdout


def test_invalid_arguments_reject_inside_the_program(tmp_path: Path) -> None:
    source = (
        "try {\n  await tools.list_dir({ path: 42 });\n} catch (error) {\n"
        '  return "caught: " + (error instanceof Error ? error.message : String(error));\n}\n'
    )
    result = run_cli("run-code", program(tmp_path, source), "--tools", "dsh_tools.demo.tools.files", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("caught: ")
    assert "path: expected string, got integer" in result.stdout


def test_a_program_without_tools_is_told_how_to_load_them(tmp_path: Path) -> None:
    source = 'return await tools["get-weather"]({ city: "Berlin" });\n'
    result = run_cli("run-code", program(tmp_path, source), cwd=tmp_path)
    assert result.returncode == 1
    assert 'tools["get-weather"] is not a binding (no tools are bound to this program)' in result.stdout
    assert "dsh-tools: note: no tools were loaded" in result.stderr
    assert "--tools MODULE[:ATTR]" in result.stderr and "--tools mytools,other.module" in result.stderr


def test_a_missing_binding_among_loaded_tools_gets_no_loading_note(tmp_path: Path) -> None:
    source = "return await tools.get_weather({});\n"
    result = run_cli("run-code", program(tmp_path, source), "--tools", "dsh_tools.demo.tools.build", cwd=tmp_path)
    assert result.returncode == 1
    assert "tools.get_weather is not a binding (known: tools.build_status)" in result.stdout
    assert "no tools were loaded" not in result.stderr


def test_dash_reads_the_program_from_standard_input(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one two\n")
    source = 'const counts = await tools.count_words({ path: "notes.txt" });\nreturn counts.words;\n'
    result = run_cli("run-code", "-", "--tools", "dsh_tools.demo.tools.text", cwd=tmp_path, stdin=source)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "2\n"


def test_tools_accepts_a_comma_separated_list(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one\n")
    source = 'await tools.list_dir({});\nreturn (await tools.count_words({ path: "notes.txt" })).characters;\n'
    result = run_cli(
        "run-code", program(tmp_path, source), "--tools", "dsh_tools.demo.tools.files, dsh_tools.demo.tools.text,",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "4\n"
    missing = run_cli("run-code", program(tmp_path, "return 1;\n"), "--tools", "a_xyz,b_xyz", cwd=tmp_path)
    assert missing.returncode == 2
    assert "cannot import 'a_xyz'" in missing.stderr and "a,b" not in missing.stderr


def test_run_code_installs_the_policy_of_a_module_register(tmp_path: Path) -> None:
    """The demo package's register(ctx) mounts the workspace gate: write_file asks, and no one can answer."""
    source = (
        "try {\n"
        '  await tools.write_file({ path: "out.txt", content: "x" });\n'
        '  return "written";\n'
        "} catch (error) {\n"
        '  return "refused: " + (error instanceof Error ? error.message : String(error));\n'
        "}\n"
    )
    result = run_cli("run-code", program(tmp_path, source), "--tools", "dsh_tools.demo.tools", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == 'refused: write_file would change "out.txt"\n'
    assert not (tmp_path / "out.txt").exists()


def test_out_of_memory_prints_one_line_not_a_v8_dump(tmp_path: Path) -> None:
    source = 'console.log("allocating");\nconst kept = [];\nwhile (true) kept.push(new Array(100_000).fill(1.5));\n'
    result = run_cli("run-code", program(tmp_path, source), "--memory-mb", "32", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == (
        "Error: code run failed (worker-exit): out of memory: the program needed more than its 32 MB heap "
        "(run-code --memory-mb MB raises the limit)\nlogs:\nallocating\n"
    )


def test_timeout_ms_ends_a_runaway_program(tmp_path: Path) -> None:
    result = run_cli("run-code", program(tmp_path, "while (true) {}\n"), "--timeout-ms", "300", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("Error: code run failed (timeout)"), result.stdout


def test_budget_flags_reach_the_runtime(tmp_path: Path) -> None:
    source = 'console.log("x".repeat(500));\nreturn "y".repeat(500);\n'
    result = run_cli(
        "run-code", program(tmp_path, source), "--max-log-bytes", "100", "--max-value-bytes", "100", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("truncated") == 2 and len(result.stdout) < 400


def test_max_calls_and_compute_ms_are_accepted_and_bound(tmp_path: Path) -> None:
    source = "for (let i = 0; i < 3; i++) await tools.list_dir({});\nreturn 'done';\n"
    result = run_cli(
        "run-code", program(tmp_path, source), "--tools", "dsh_tools.demo.tools.files",
        "--max-calls", "2", "--compute-ms", "5000", cwd=tmp_path,
    )
    assert result.returncode == 1
    assert "RangeError" in result.stdout


def test_a_budget_that_is_not_a_positive_number_is_a_usage_error(tmp_path: Path) -> None:
    for value in ("0", "-5", "ten"):
        result = run_cli("run-code", program(tmp_path, "return 1;\n"), "--timeout-ms", value, cwd=tmp_path)
        assert result.returncode == 2 and "--timeout-ms: expected a positive whole number" in result.stderr
