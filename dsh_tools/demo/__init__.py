"""The scripted demo session behind ``dsh-tools demo``.

A real registry (native, code or both mode; Deno for Code Mode) over a
temporary workspace, real tools, real policy plugins, and a script playing the
agent, so a person can watch every seam of the pipeline in a few seconds:

* :mod:`.tools` — the tools (shipped in the package, so the demo runs from any install);
* :mod:`.workspace` — the files the tools work on;
* :mod:`.policies` — the pre-execute gate, the redactor, the scripted approver;
* :mod:`.session` — the booted context and the call helper;
* :mod:`.script` — the steps, and :func:`play_demo` running them;
* :mod:`.transcript` / :mod:`.render` — the result as data and as text.
"""

from dsh_tools.demo.render import render_transcript
from dsh_tools.demo.script import CODE_PROGRAM, play_demo
from dsh_tools.demo.session import DemoSession, ToolsFactory
from dsh_tools.demo.transcript import CallRecord, Step, Transcript

__all__ = [
    "CODE_PROGRAM",
    "CallRecord",
    "DemoSession",
    "Step",
    "ToolsFactory",
    "Transcript",
    "play_demo",
    "render_transcript",
]
