"""Example code to read: a custom pipeline and a chat loop, type-checked and exercised by the tests.

The tools the demo uses ship in the package, in :mod:`dsh_tools.demo.tools`.
"""
