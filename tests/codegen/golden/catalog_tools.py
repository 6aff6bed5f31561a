from typing import Any, Awaitable, Callable, Literal, NotRequired, Protocol, TypedDict, overload


class ToolError(Exception):
    """A denied or failed call; its str() is the result's "Error: ..." text."""



class BashArgs(TypedDict):
    command: str
    timeout: NotRequired[int | None]  # Milliseconds; null for none.
    env: NotRequired[dict[str, str]]


class ConfigPatchArgs(TypedDict):
    pass


class CountWordsResult(TypedDict):
    words: int
    lines: int
    characters: int


class CountWordsArgs(TypedDict):
    text: str


class EditFile_Edits_Item(TypedDict):
    oldText: str  # Text to find (must be unique).
    newText: str


class EditFileArgs(TypedDict):
    path: str
    edits: list[EditFile_Edits_Item]  # Replacements, applied in order.
    dryRun: NotRequired[bool]


class FindSymbol_Result(TypedDict):
    kind: Literal["hit"]
    path: str  # Relative to the workspace.
    line: int


class FindSymbol_Result2(TypedDict):
    kind: Literal["miss"]
    reason: str



class FindSymbolArgs(TypedDict):
    name: str


class FindUser_Result_Manager(TypedDict):
    login: str


class FindUserResult(TypedDict):
    name: str
    email: str | None
    role: Literal["admin", "member"] | None
    manager: FindUser_Result_Manager | None
    teams: list[str] | None


class FindUserArgs(TypedDict):
    login: str


GrepArgs = TypedDict("GrepArgs", {"pattern": str, "path": NotRequired[str], "output_mode": NotRequired[Literal["content", "files_with_matches", "count"]], "-i": NotRequired[bool], "-A": NotRequired[int], "context": NotRequired[int | None], "globs": NotRequired[list[str | float] | None]})


HttpRequestArgs = TypedDict("HttpRequestArgs", {"url": str, "method": Any, "headers": NotRequired[dict[str, str]], "body": NotRequired[str | dict[str, Any] | None], "Content-Type": NotRequired[str]})


class IsCleanArgs(TypedDict):
    pass


class JobIdArgs(TypedDict):
    pass


class ListToolsArgs(TypedDict):
    pass


class McpSearch_Filter(TypedDict):
    field: str
    value: NotRequired[str | float | bool]


class McpSearchArgs(TypedDict):
    query: str
    filter: NotRequired[str | McpSearch_Filter]
    mode: NotRequired[Literal["fuzzy"]]


class MyToolArgs(TypedDict):
    version: Literal[2]
    flag: NotRequired[Literal[True]]
    nothing: NotRequired[None]


class NewArgs(TypedDict):
    kind: Literal["file", "dir"]


class ReadFileArgs(TypedDict):
    path: str  # Absolute path of the file.
    offset: NotRequired[int]  # First line to read (1-based).
    limit: NotRequired[int]


class ReadNoteArgs(TypedDict):
    key: str


class ResolveRefArgs(TypedDict):
    ref: str


class SearchText_Result_Item(TypedDict):
    path: str  # Relative to the workspace.
    line: int
    text: str



class SearchTextArgs(TypedDict):
    query: str


class SetLevelArgs(TypedDict):
    level: Any
    scale: NotRequired[Literal[1, 10, 100]]


class SymbolsByFile_Result_Value_Item(TypedDict):
    kind: Literal["hit"]
    path: str  # Relative to the workspace.
    line: int


class SymbolsByFile_Result_Value_Item2(TypedDict):
    kind: Literal["miss"]
    reason: str



class SymbolsByFileArgs(TypedDict):
    names: list[str]


class TreeArgs(TypedDict):
    root: Any


class WordCountsArgs(TypedDict):
    text: str


class WriteFileArgs(TypedDict):
    path: str
    content: str  # Full new content. Ends a comment: */ (escaped).


ToolArgs = TypedDict("ToolArgs", {"\u8bcd": str})


class Tools(Protocol):

    async def bash(self, *, command: str, timeout: int | None = ..., env: dict[str, str] = ...) -> str:
        """Run a shell command."""

    async def config_patch(self) -> str:
        """Patch the configuration."""

    async def count_words(self, *, text: str) -> CountWordsResult:
        """Count the words, lines and characters of a text."""

    async def edit_file(self, *, path: str, edits: list[EditFile_Edits_Item], dryRun: bool = ...) -> str:
        """Apply exact-text replacements to a file."""

    async def find_symbol(self, *, name: str) -> FindSymbol_Result | FindSymbol_Result2:
        """Where a symbol is defined."""

    async def find_user(self, *, login: str) -> FindUserResult | None:
        """Look a user up by login; null when there is none."""

    async def grep(self, args: GrepArgs, /) -> str:
        """Search file contents with a regular expression."""

    async def http_request(self, args: HttpRequestArgs, /) -> str:
        """Send an HTTP request."""

    async def is_clean(self) -> bool:
        """Whether the tree has no changes."""

    async def job_id(self) -> str:
        """Start a job; resolves to its id."""

    async def list_tools(self) -> str:
        ...

    async def new(self, *, kind: Literal["file", "dir"]) -> str:
        """A tool whose name is a TypeScript keyword in method position."""

    async def read_file(self, *, path: str, offset: int = ..., limit: int = ...) -> str:
        """Read a text file. Returns numbered lines."""

    async def read_note(self, *, key: str) -> str | None:
        """The note's text; null when it was never written."""

    async def resolve_ref(self, *, ref: str) -> str | int:
        """A commit id, or a pull request number."""

    async def search_text(self, *, query: str) -> list[SearchText_Result_Item]:
        """Find the lines that contain a string."""

    async def set_level(self, *, level: Any, scale: Literal[1, 10, 100] = ...) -> str:
        """Set the verbosity level."""

    async def symbols_by_file(self, *, names: list[str]) -> dict[str, list[SymbolsByFile_Result_Value_Item | SymbolsByFile_Result_Value_Item2]] | None:
        """Each file's findings; null when nothing was indexed."""

    async def tree(self, *, root: Any) -> str:
        """Create a directory tree from a recursive spec."""

    async def word_counts(self, *, text: str) -> dict[str, int]:
        """How often each word occurs."""

    async def write_file(self, *, path: str, content: str) -> str:
        """Write a file, replacing it. Use /* comments */ freely."""

    @overload
    def __getitem__(self, name: Literal["mcp.search"]) -> Callable[[McpSearchArgs], Awaitable[str]]:
        """MCP: search the index."""

    @overload
    def __getitem__(self, name: Literal["my-tool"]) -> Callable[[MyToolArgs], Awaitable[str]]:
        """A hyphenated MCP tool name."""

    @overload
    def __getitem__(self, name: Literal["\u641c\u7d22"]) -> Callable[[ToolArgs], Awaitable[str]]:
        """Unicode tool name; quoted."""
    def __getitem__(self, name: str) -> Callable[[Any], Awaitable[Any]]: ...


tools: Tools
