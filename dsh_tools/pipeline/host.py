"""``PipelineHost`` and ``Guard``, as the pipeline has always named them: :mod:`dsh_tools.seams` keeps them."""

from dsh_tools.seams import Guard as Guard, PipelineHost as PipelineHost

__all__ = ["Guard", "PipelineHost"]
