"""A realistic tool catalog for the large-catalog benchmarks and the retrieval set (issue 37).

Where the surfaces come from
    Ten API surfaces, each hand-written as 100 operations: ``fs`` (a local file
    system), ``git``, ``calendar``, ``payments``, ``email``, ``issues`` (an issue
    tracker), ``storage`` (an object store), ``database`` (SQL database
    administration), ``kubernetes`` and ``chat``. Every operation is modelled on
    the public shape of a well-known API of its kind (POSIX and common file
    utilities, the git CLI, Google Calendar / Microsoft Graph calendars, Stripe,
    Gmail and transactional mail services, Jira, Amazon S3, PostgreSQL and managed
    Postgres services, kubectl, Slack's Web API): the operation's name, its
    description written the way such docs describe it, and its parameters with
    types, enums and which of them are required. No operation is filler: each is
    something one of those APIs actually lets a caller do.

    The data is compact text, one block per surface (see ``_parse``): a line per
    tool, ``name(shared*, shared): Description.``, then its own parameters as
    ``  name* type: Description.`` (``*`` marks a required one; ``type`` is ``str``,
    ``int``, ``num``, ``bool``, ``obj``, ``date``, ``datetime``, ``uri``, ``email``,
    ``enum(a|b|c)``, any of them with ``[]`` for an array). Names in parentheses are
    the surface's shared parameters, declared once per surface. Indented-by-four
    lines continue the previous text. Tool names get the surface as a prefix:
    ``git`` + ``cherry_pick`` is ``git_cherry_pick``.

What the functions give
    ``surfaces()`` maps each surface to its tools. ``labelled_catalog()`` is the
    1,000 tools, the surfaces interleaved (the first tool of each surface, then
    the second of each, ...), so that any prefix of it is a mixed catalog.
    ``large_catalog(count)`` is the first ``count`` tools of a 10,000-tool catalog:
    the labelled 1,000, then the same 1,000 as nine deployments a large company
    would really expose side by side (EU, US and APAC regions, a v2 and a legacy
    API version, sandbox and staging environments, two tenants), each a name
    prefix (``eu_git_cherry_pick``) and a sentence added to the description. All
    of it is pure data: equal on every run and every machine.

The retrieval set
    ``benchmarks/retrieval_queries.json`` labels 220 queries over
    ``labelled_catalog()`` with the one tool each is for. Its author wrote every
    query by paraphrasing the labelled tool's description as a user or model
    would phrase the need, never copying the tool's name, and had not seen any
    ranker or search code (none existed when the set was written and frozen;
    ``benchmarks/retrieval_queries.sha256`` holds its digest, checked by
    ``tests/foundation/test_retrieval_set.py``).
"""

from __future__ import annotations

import copy
import re
from functools import cache
from typing import Any

__all__ = ["SURFACE_NAMES", "VARIANTS", "labelled_catalog", "large_catalog", "surfaces"]

Tool = dict[str, Any]

SURFACE_NAMES: tuple[str, ...] = (
    "fs", "git", "calendar", "payments", "email", "issues", "storage", "database", "kubernetes", "chat",
)
"""The surfaces, in the order ``labelled_catalog()`` interleaves them."""

TOOLS_PER_SURFACE = 100
"""How many of each surface's tools ``labelled_catalog()`` takes (each surface has exactly this many)."""

VARIANTS: tuple[tuple[str, str], ...] = (
    ("eu", "Served by the EU deployment (eu-central-1); data stays in the European Union."),
    ("us", "Served by the US deployment (us-east-1)."),
    ("apac", "Served by the Asia-Pacific deployment (ap-southeast-1)."),
    ("v2", "Version 2 of this operation: list results are paginated with opaque cursors and errors follow RFC 9457."),
    ("legacy", "Legacy v1 operation kept for older integrations; it is deprecated and will be removed."),
    ("sandbox", "Runs against the sandbox environment with test data; nothing reaches real users."),
    ("staging", "Runs against the staging environment, which mirrors production a day behind."),
    ("acme", "Scoped to the Acme Corp tenant; credentials of other tenants are rejected."),
    ("globex", "Scoped to the Globex tenant; credentials of other tenants are rejected."),
)
"""The nine deployments ``large_catalog`` adds after the labelled 1,000: (name prefix, sentence added)."""

_SCALARS: dict[str, dict[str, str]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "num": {"type": "number"},
    "bool": {"type": "boolean"},
    "obj": {"type": "object"},
    "date": {"type": "string", "format": "date"},
    "datetime": {"type": "string", "format": "date-time"},
    "uri": {"type": "string", "format": "uri"},
    "email": {"type": "string", "format": "email"},
}
_IDENT = r"[a-z][a-z0-9_]*"
_TOOL_LINE = re.compile(rf"^({_IDENT})(?:\(([^)]*)\))?: (.+)$")
_PARAM_LINE = re.compile(rf"^({_IDENT})(\*?) (\S+): (.+)$")


def _schema(type_text: str, description: str) -> dict[str, Any]:
    array = type_text.endswith("[]")
    base = type_text[:-2] if array else type_text
    item: dict[str, Any]
    if base.startswith("enum(") and base.endswith(")"):
        item = {"type": "string", "enum": base[5:-1].split("|")}
    elif base in _SCALARS:
        item = dict(_SCALARS[base])
    else:
        raise ValueError(f"unknown parameter type {type_text!r}")
    if array:
        return {"type": "array", "items": item, "description": description}
    item["description"] = description
    return item


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Joins continuation lines (indented by four) to the line before; gives (indent, text) pairs."""
    lines: list[tuple[int, str]] = []
    for raw in text.strip("\n").split("\n"):
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        if indent >= 4:
            indent_before, before = lines[-1]
            lines[-1] = (indent_before, f"{before} {raw.strip()}")
        else:
            lines.append((indent, raw.strip()))
    return lines


def _parse_shared(text: str) -> dict[str, dict[str, Any]]:
    shared: dict[str, dict[str, Any]] = {}
    for _, line in _logical_lines(text):
        match = _PARAM_LINE.match(line)
        if match is None or match.group(2):
            raise ValueError(f"bad shared parameter line: {line!r}")
        shared[match.group(1)] = _schema(match.group(3), match.group(4))
    return shared


def _parse(surface: str, shared_text: str, tools_text: str) -> list[Tool]:
    shared = _parse_shared(shared_text)
    tools: list[Tool] = []
    properties: dict[str, Any] = {}
    required: list[str] = []
    for indent, line in _logical_lines(tools_text):
        if indent == 0:
            match = _TOOL_LINE.match(line)
            if match is None:
                raise ValueError(f"{surface}: bad tool line: {line!r}")
            properties, required = {}, []
            tools.append({
                "name": f"{surface}_{match.group(1)}",
                "description": match.group(3),
                "parameters": {"type": "object", "properties": properties, "required": required},
            })
            for token in (match.group(2) or "").split(","):
                name = token.strip().rstrip("*")
                if not name:
                    continue
                if name not in shared:
                    raise ValueError(f"{surface}: {tools[-1]['name']}: no shared parameter {name!r}")
                properties[name] = copy.deepcopy(shared[name])
                if token.strip().endswith("*"):
                    required.append(name)
        else:
            match = _PARAM_LINE.match(line)
            if match is None or not tools:
                raise ValueError(f"{surface}: bad parameter line: {line!r}")
            name = match.group(1)
            if name in properties:
                raise ValueError(f"{surface}: {tools[-1]['name']}: parameter {name!r} twice")
            properties[name] = _schema(match.group(3), match.group(4))
            if match.group(2):
                required.append(name)
    wrong = [tool["name"] for tool in tools if not 1 <= len(tool["parameters"]["properties"]) <= 8]
    if wrong:
        raise ValueError(f"not 1 to 8 parameters: {', '.join(wrong)}")
    return tools


@cache
def _surfaces() -> tuple[tuple[str, tuple[Tool, ...]], ...]:
    built: list[tuple[str, tuple[Tool, ...]]] = []
    names: set[str] = set()
    for surface in SURFACE_NAMES:
        shared_text, tools_text = _SOURCES[surface]
        tools = _parse(surface, shared_text, tools_text)
        if len(tools) != TOOLS_PER_SURFACE:
            raise ValueError(f"{surface}: {len(tools)} tools, not {TOOLS_PER_SURFACE}")
        for tool in tools:
            if tool["name"] in names:
                raise ValueError(f"tool {tool['name']!r} twice")
            names.add(tool["name"])
        built.append((surface, tuple(tools)))
    return tuple(built)


def surfaces() -> dict[str, list[Tool]]:
    """Each surface's hand-written tools, in the order written (fresh copies: callers may change them)."""
    return {surface: copy.deepcopy(list(tools)) for surface, tools in _surfaces()}


def labelled_catalog() -> list[Tool]:
    """The 1,000 tools the retrieval set labels: the surfaces interleaved, one tool of each in turn."""
    built = [tools for _, tools in _surfaces()]
    return [copy.deepcopy(tools[index]) for index in range(TOOLS_PER_SURFACE) for tools in built]


_TOOL_REFERENCE = re.compile(rf"\b(?:{'|'.join(SURFACE_NAMES)})_[a-z0-9_]+\b")


def _variant(tool: Tool, prefix: str, sentence: str, names: set[str]) -> Tool:
    """The tool as the deployment ``prefix`` exposes it; names of other tools in its texts get the prefix too."""

    def rename(match: re.Match[str]) -> str:
        return f"{prefix}_{match.group(0)}" if match.group(0) in names else match.group(0)

    varied = copy.deepcopy(tool)
    varied["name"] = f"{prefix}_{tool['name']}"
    varied["description"] = f"{_TOOL_REFERENCE.sub(rename, tool['description'])} {sentence}"
    for schema in varied["parameters"]["properties"].values():
        schema["description"] = _TOOL_REFERENCE.sub(rename, schema["description"])
    return varied


def large_catalog(count: int) -> list[Tool]:
    """The first ``count`` (at most 10,000) tools: the labelled 1,000, then each of ``VARIANTS`` of them in turn."""
    base = labelled_catalog()
    limit = len(base) * (1 + len(VARIANTS))
    if not 0 <= count <= limit:
        raise ValueError(f"count must be between 0 and {limit}, not {count}")
    names = {tool["name"] for tool in base}
    tools = base[:count]
    for prefix, sentence in VARIANTS:
        if len(tools) >= count:
            break
        tools.extend(_variant(tool, prefix, sentence, names) for tool in base[: count - len(tools)])
    return tools


# ---------------------------------------------------------------------------------------------------------------------
# The surfaces. Each is (shared parameters, tools); see the module docstring for the notation.
# ---------------------------------------------------------------------------------------------------------------------

_FS_SHARED = """
path str: Absolute path, or a path relative to the workspace root.
source str: Path of the file or directory to read from.
destination str: Path to write to; missing parent directories are created.
encoding enum(utf-8|utf-16|latin-1|ascii): Text encoding; defaults to utf-8.
overwrite bool: Replace the destination if it already exists; defaults to false.
recursive bool: Apply the operation to everything below a directory as well.
follow_symlinks bool: Resolve symbolic links instead of acting on the links themselves; defaults to true.
pattern str: Glob pattern such as "**/*.py", matched against paths relative to the root.
"""

_FS = """
read_file(path*, encoding): Reads a whole text file and returns its contents.
    Files larger than 10 MB are rejected; read them in slices with fs_read_byte_range or fs_read_lines.
read_byte_range(path*): Returns a slice of a file's raw bytes, base64-encoded.
  offset* int: Byte offset to start reading at.
  length* int: Number of bytes to read; at most 8 MB.
read_lines(path*, encoding): Returns the lines of a text file between two line numbers, with their numbers.
  start_line* int: First line to return, counting from 1.
  end_line int: Last line to return, inclusive; defaults to the end of the file.
write_file(path*, encoding): Writes text to a file, creating it or replacing its contents.
    The write is atomic: the text goes to a temporary file that is then renamed over the target.
  content* str: The full new contents of the file.
  create_parents bool: Create missing parent directories; defaults to true.
append_to_file(path*, encoding): Adds text at the end of a file, creating the file if it does not exist.
  content* str: Text to append; no newline is added.
touch_file(path*): Updates a file's access and modification times to now, creating an empty file if there is none.
  no_create bool: Do nothing when the file does not exist.
truncate_file(path*): Cuts a file down, or extends it with zero bytes, to an exact size.
  size* int: New size in bytes; 0 empties the file.
delete_file(path*): Permanently removes a file or a symbolic link. Directories are refused; use fs_remove_directory.
  missing_ok bool: Succeed silently when the file does not exist.
copy_file(source*, destination*, overwrite): Copies one file to a new location.
  preserve_metadata bool: Keep the permission bits and timestamps of the source.
move_path(source*, destination*, overwrite): Moves or renames a file or directory.
    Across file systems the data is copied and then the source removed.
list_directory(path*): Lists the entries directly inside a directory, with their type, size and modification time.
  include_hidden bool: Include entries whose names start with a dot.
  sort_by enum(name|size|modified): Order of the entries; defaults to name.
walk_tree(path*, follow_symlinks): Lists every file and directory below a root, depth first, with relative paths.
  max_depth int: How many levels below the root to descend; unlimited by default.
  exclude str[]: Glob patterns of paths to skip, for example "node_modules".
create_directory(path*): Creates a directory, along with any missing parent directories.
  mode str: Permission bits in octal, such as "755".
  exist_ok bool: Succeed when the directory already exists; defaults to true.
remove_directory(path*, recursive): Removes a directory. Without recursive only an empty directory is removed.
get_file_info(path*, follow_symlinks): Returns a path's metadata: type, size, owner, group, permissions,
    inode and its access, modification and change times.
path_exists(path*): Tells whether anything exists at a path, and if so whether it is a file, directory or link.
glob_paths(pattern*): Returns the paths under a root that match a glob pattern, sorted.
  root str: Directory the pattern is matched from; defaults to the workspace root.
find_files(path*): Finds files below a directory by name, size and age, like the find command.
  name_pattern str: Shell pattern the file name must match, for example "*.log".
  min_size int: Smallest size in bytes to include.
  modified_within_days int: Only files modified in the last this-many days.
  type enum(file|directory|symlink): Kind of entry to return.
search_text(path*, pattern): Searches file contents for a regular expression and returns the matching lines
    with file names and line numbers, like grep.
  regex* str: Regular expression to search for.
  ignore_case bool: Match without regard to letter case.
  context_lines int: Lines of context to show around each match.
replace_in_file(path*): Replaces every match of a regular expression in a file, in place, and reports how many.
  regex* str: Regular expression to find.
  replacement* str: Replacement text; \\1 and the like refer to groups.
  dry_run bool: Report the changes without writing them.
head_file(path*): Returns the first lines of a text file.
  lines int: How many lines to return; defaults to 10.
tail_file(path*): Returns the last lines of a text file, for example the newest entries of a log.
  lines int: How many lines to return; defaults to 10.
  follow_seconds int: Keep reading lines appended during this many seconds.
count_lines(path*): Counts the lines, words and bytes of a file, like wc.
  count enum(lines|words|bytes|all): What to count; defaults to all.
diff_files: Compares two text files and returns their differences as a unified diff.
  left* str: Path of the original file.
  right* str: Path of the changed file.
  context_lines int: Unchanged lines shown around each change; defaults to 3.
compute_checksum(path*): Computes a cryptographic hash of a file's contents.
  algorithm enum(md5|sha1|sha256|sha512|blake2b): Hash function; defaults to sha256.
compare_directories(recursive): Compares two directory trees and lists the files only in one of them
    and the files present in both whose contents differ.
  left* str: First directory.
  right* str: Second directory.
set_permissions(path*, recursive): Changes the permission bits of a file or directory, like chmod.
  mode* str: Octal mode such as "644", or a symbolic one such as "u+x,go-w".
change_owner(path*, recursive): Changes the owning user and group of a file or directory, like chown.
  owner str: User name or numeric id.
  group str: Group name or numeric id.
create_symlink: Creates a symbolic link pointing at a target path.
  target* str: Path the link points to; it need not exist.
  link_path* str: Where to create the link.
read_symlink(path*): Returns the target a symbolic link points to, without resolving it further.
create_hard_link: Creates a second directory entry for an existing file on the same file system.
  existing* str: Path of the existing file.
  new_path* str: Path of the new link.
resolve_path(path*): Returns the canonical absolute path, with symbolic links, "." and ".." resolved.
  strict bool: Fail when a component of the path does not exist.
get_disk_usage(path*): Totals the space used by a directory and everything below it, like du.
  max_depth int: Also report the totals of subdirectories down to this depth.
  human_readable bool: Give sizes as "4.2G" rather than bytes.
get_free_space(path*): Reports the total, used and available space of the file system holding a path, like df.
list_mounts: Lists mounted file systems with their device, mount point, type and options.
  type str: Only mounts of this file system type, for example "ext4" or "nfs".
create_temp_file: Creates a new empty file with a unique name in the temporary directory and returns its path.
  suffix str: Ending for the name, for example ".json".
  prefix str: Beginning for the name.
create_temp_directory: Creates a new empty directory with a unique name in the temporary directory.
  prefix str: Beginning for the directory name.
lock_file(path*): Takes an advisory lock on a file so that cooperating processes wait for it.
  exclusive bool: Take a write lock rather than a shared read lock; defaults to true.
  timeout_seconds num: How long to wait for the lock before failing.
unlock_file(path*): Releases an advisory lock taken earlier with fs_lock_file.
  lock_id* str: Identifier returned when the lock was taken.
get_xattr(path*): Reads one extended attribute of a file.
  name* str: Attribute name, for example "user.origin".
set_xattr(path*): Sets an extended attribute on a file, creating or replacing it.
  name* str: Attribute name, for example "user.origin".
  value* str: Attribute value.
list_xattrs(path*): Lists the names of all extended attributes set on a file.
remove_xattr(path*): Removes one extended attribute from a file.
  name* str: Attribute name.
get_acl(path*): Returns the POSIX access control list of a file or directory, including default entries.
set_acl(path*, recursive): Adds or changes an access control list entry granting a user or group access.
  entry* str: Entry in getfacl form, for example "u:alice:rw-".
  default bool: Set a default entry, inherited by new files in the directory.
move_to_trash(path*): Moves a file or directory to the user's trash instead of deleting it, so it can be restored.
restore_from_trash: Puts an item from the trash back at the place it was deleted from.
  trash_id* str: Identifier of the trashed item, from fs_list_trash.
  destination str: Restore somewhere else instead.
empty_trash: Permanently deletes items in the trash.
  older_than_days int: Only items trashed more than this many days ago.
list_trash: Lists the items in the trash with their original paths and deletion dates.
  limit int: Maximum number of items to return.
create_zip_archive(destination*): Packs files and directories into a zip archive.
  paths* str[]: Files and directories to include.
  compression_level int: From 0 (store only) to 9 (smallest); defaults to 6.
  password str: Encrypt the entries with this password.
extract_archive(destination*, overwrite): Unpacks a zip, tar, tar.gz, tar.bz2 or 7z archive into a directory.
    Entries that would land outside the destination are refused.
  archive* str: Path of the archive.
  password str: Password of an encrypted archive.
list_archive_contents: Lists the entries of an archive with their sizes and dates, without unpacking it.
  archive* str: Path of the archive.
create_tar_archive(destination*): Packs files and directories into a tar archive, optionally compressed.
  paths* str[]: Files and directories to include.
  compression enum(none|gzip|bzip2|xz|zstd): Compression to apply; defaults to gzip.
compress_file(path*): Compresses a single file, writing it next to the original with the format's extension.
  format enum(gzip|bzip2|xz|zstd): Compression format; defaults to gzip.
  keep_original bool: Keep the uncompressed file; defaults to false.
decompress_file(path*): Decompresses a single .gz, .bz2, .xz or .zst file next to the compressed one.
  keep_original bool: Keep the compressed file; defaults to false.
watch_path(path*, recursive): Subscribes to changes under a path and delivers create, modify, delete and rename
    events to a webhook until unwatched.
  callback_url* uri: URL that receives the events.
  events enum(create|modify|delete|rename)[]: Kinds of change to report; all by default.
unwatch_path: Ends a subscription made with fs_watch_path.
  watch_id* str: Identifier returned by fs_watch_path.
set_timestamps(path*): Sets a file's access and modification times to given values.
  modified* datetime: New modification time.
  accessed datetime: New access time; defaults to the modification time.
detect_mime_type(path*): Identifies a file's media type from its contents, such as "image/png" or "application/pdf".
detect_encoding(path*): Guesses the character encoding of a text file and reports its confidence.
convert_encoding(path*, encoding): Re-encodes a text file from one character encoding to another, in place.
  from_encoding* str: Current encoding of the file, for example "windows-1252".
convert_line_endings(path*): Rewrites a text file's line endings, for example from Windows CRLF to Unix LF.
  style* enum(lf|crlf|cr): Line ending to use.
split_file(path*): Splits a file into numbered pieces of at most a given size or number of lines.
  bytes_per_part int: Size limit of each piece.
  lines_per_part int: Line limit of each piece; used instead of bytes_per_part.
concatenate_files(destination*, overwrite): Joins several files end to end into one file, in the order given.
  sources* str[]: Files to join.
sync_directories(source*, destination*): Makes a destination directory mirror a source directory,
    copying only new and changed files, like rsync.
  delete_extraneous bool: Remove destination files that are not in the source.
  dry_run bool: List what would be copied and deleted without doing it.
find_duplicates(path*): Finds files below a directory that have identical contents, grouped by content hash.
  min_size int: Ignore files smaller than this many bytes.
find_large_files(path*): Returns the biggest files below a directory, largest first.
  limit int: How many files to return; defaults to 20.
  min_size int: Only files of at least this many bytes.
find_empty_directories(path*): Lists directories below a root that contain no files at any depth.
  delete bool: Remove them as well.
bulk_rename(path*): Renames every file in a directory whose name matches a regular expression,
    using a replacement template; reports old and new names.
  regex* str: Regular expression matched against file names.
  replacement* str: New name template; \\1 and the like refer to groups.
  dry_run bool: Report the renames without doing them.
read_json(path*): Parses a JSON file and returns its value, optionally only the part at a JSON Pointer.
  pointer str: JSON Pointer such as "/dependencies/react".
write_json(path*): Serializes a value as JSON and writes it to a file.
  value* obj: The value to write.
  indent int: Spaces of indentation; 0 writes it on one line.
  sort_keys bool: Write object keys in sorted order.
read_csv(path*, encoding): Parses a CSV file and returns its rows as objects keyed by the header.
  delimiter str: Field separator; defaults to a comma.
  limit int: Maximum number of rows to return.
write_csv(path*, encoding): Writes rows of objects to a CSV file, with a header row of their keys.
  rows* obj[]: Rows to write.
  columns str[]: Column order; defaults to the keys of the first row.
apply_patch(path*): Applies a unified diff to a file or directory, like the patch command.
  patch* str: The unified diff text.
  reverse bool: Undo the patch instead of applying it.
  strip int: Leading path components to remove from the names in the patch.
insert_lines(path*): Inserts text into a file before a given line number.
  line* int: Line number to insert before; one past the last line appends.
  text* str: Text to insert.
delete_lines(path*): Removes a range of lines from a text file.
  start_line* int: First line to remove, counting from 1.
  end_line* int: Last line to remove, inclusive.
sort_lines(path*): Sorts the lines of a text file in place.
  numeric bool: Compare lines as numbers.
  reverse bool: Sort in descending order.
  unique bool: Keep only the first of equal lines.
dedupe_lines(path*): Removes repeated lines from a text file, keeping the first occurrence and the order, like uniq.
  adjacent_only bool: Only collapse runs of identical neighbouring lines.
hex_dump(path*): Shows a file's bytes as hexadecimal next to their printable characters, like xxd.
  offset int: Byte offset to start at.
  length int: Number of bytes to show; defaults to 256.
read_image_metadata(path*): Reads the EXIF and other embedded metadata of an image:
    dimensions, camera, capture time and GPS position.
create_thumbnail(path*, destination*): Writes a scaled-down copy of an image that fits in a bounding box.
  max_width* int: Largest width in pixels.
  max_height* int: Largest height in pixels.
  format enum(png|jpeg|webp): Output format; defaults to that of the source.
encrypt_file(path*, destination*): Encrypts a file with a passphrase or a recipient's public key.
  passphrase str: Passphrase for symmetric encryption.
  recipient str: Key id or email of the public key to encrypt for.
decrypt_file(path*, destination*): Decrypts a file encrypted with fs_encrypt_file or with GnuPG.
  passphrase str: Passphrase used to encrypt it.
shred_file(path*): Overwrites a file's contents several times before deleting it, so it cannot be recovered.
  passes int: Number of overwrite passes; defaults to 3.
get_quota(path*): Reports the disk quota of a user on the file system holding a path: usage, soft and hard limits.
  user str: User to report on; defaults to the caller.
set_quota(path*): Sets a user's soft and hard disk quota on the file system holding a path.
  user* str: User whose quota to set.
  soft_limit_bytes* int: Usage above which a grace period starts.
  hard_limit_bytes* int: Usage that can never be exceeded.
create_snapshot(path*): Takes a read-only point-in-time snapshot of a ZFS or Btrfs volume.
  name* str: Name of the snapshot.
list_snapshots(path*): Lists the snapshots of a volume with their creation times and sizes.
restore_snapshot(path*): Rolls a volume back to a snapshot, discarding every change made since.
  name* str: Name of the snapshot to roll back to.
mount_volume(path*): Mounts a device or network share at a directory.
  device* str: Device, such as "/dev/sdb1", or share, such as "server:/export".
  options str[]: Mount options, for example "ro" or "noexec".
unmount_volume(path*): Unmounts the file system mounted at a directory.
  force bool: Unmount even when files are open.
get_working_directory: Returns the current working directory of the session.
  physical bool: Resolve symbolic links in the result.
change_working_directory(path*): Sets the session's current working directory, against which relative paths resolve.
expand_path(path*): Expands "~" and environment variables such as $HOME in a path, without touching the disk.
list_open_files: Lists the files held open by processes, like lsof, optionally only below a path or for one process.
  path str: Only files below this path.
  pid int: Only files of this process.
preallocate_file(path*): Reserves disk space for a file up front without writing data, like fallocate.
  size* int: Number of bytes to reserve.
verify_checksums: Checks files against a manifest of checksums, like sha256sum -c,
    and lists any that differ or are missing.
  manifest* str: Path of the checksum manifest.
  algorithm enum(md5|sha1|sha256|sha512): Hash function the manifest uses; defaults to sha256.
rotate_log(path*): Rotates a log file: renames it with a number suffix, starts an empty one,
    compresses older copies and removes the oldest.
  keep int: How many rotated copies to keep; defaults to 5.
  compress bool: Gzip the rotated copies; defaults to true.
copy_directory(source*, destination*, overwrite, follow_symlinks): Copies a directory and everything in it
    to a new location.
  exclude str[]: Glob patterns of paths not to copy.
set_file_flags(path*): Sets or clears file attribute flags such as immutable or append-only, like chattr.
  immutable bool: Forbid any change, rename or deletion, even by root.
  append_only bool: Only allow appending to the file.
"""

_GIT_SHARED = """
repo_path str: Path of the working tree; defaults to the current directory.
branch str: Name of a local branch, for example "main" or "feature/login".
remote str: Name of a remote; defaults to "origin".
revision str: Commit, branch, tag or other revision expression, such as "HEAD~2" or "v1.4.0".
paths str[]: Paths to limit the operation to; all paths when omitted.
message str: Commit or tag message.
force bool: Proceed even when git would normally refuse, possibly losing work.
"""

_GIT = """
clone(force): Copies a remote repository into a new local directory and checks out its default branch.
  url* str: URL or path of the repository to copy.
  directory str: Where to put the copy; defaults to the repository's name.
  depth int: Fetch only this many most recent commits (a shallow copy).
  branch str: Check out this branch instead of the remote's default.
init(repo_path*): Creates an empty repository, or reinitializes an existing one, in a directory.
  initial_branch str: Name of the first branch; defaults to "main".
  bare bool: Create a repository without a working tree.
status(repo_path): Shows the state of the working tree: the current branch, how far it is ahead of or behind
    its upstream, and which files are staged, modified, or untracked.
  porcelain bool: Return stable machine-readable output.
stage_files(repo_path, paths): Adds changes in the working tree to the index so the next commit includes them.
  all bool: Stage every modification, deletion and new file.
  patch_hunks str[]: Stage only these hunks, identified as returned by git_diff_working_tree.
unstage_files(repo_path, paths*): Removes changes from the index, keeping them in the working tree.
commit(repo_path, message*): Records the staged changes as a new commit on the current branch.
  author str: Override the author, as "Name <email>".
  allow_empty bool: Create a commit even when nothing is staged.
  sign bool: GPG-sign the commit.
amend_commit(repo_path, message): Replaces the tip commit of the current branch with one that also contains
    the staged changes, optionally with a new message.
  reset_author bool: Make the caller the author and reset the date.
push(repo_path, remote, branch, force): Uploads local commits of a branch to a remote and updates
    the remote branch.
  set_upstream bool: Make the remote branch the upstream of the local one.
  tags bool: Also push all tags.
  force_with_lease bool: Force only if the remote branch is where this repository last saw it.
pull(repo_path, remote, branch): Fetches a branch from a remote and integrates it into the current branch.
  strategy enum(merge|rebase|ff-only): How to integrate the fetched commits; defaults to the configured pull.rebase.
fetch(repo_path, remote): Downloads commits, branches and tags from a remote without changing local branches
    or the working tree.
  all_remotes bool: Fetch from every configured remote.
  prune bool: Delete remote-tracking branches whose branch is gone on the remote.
create_branch(repo_path, branch*): Creates a new branch pointing at a revision, without switching to it.
  start_point str: Revision the branch starts at; defaults to HEAD.
  track bool: Set the start point as the branch's upstream.
delete_branch(repo_path, branch*, force): Deletes a local branch. Unmerged branches need force.
  delete_remote bool: Also delete the branch on the remote.
rename_branch(repo_path, branch*): Renames a local branch, keeping its reflog and configuration.
  new_name* str: New branch name.
list_branches(repo_path): Lists branches with the commit each points at and its upstream.
  include_remote bool: Also list remote-tracking branches.
  merged_into str: Only branches fully merged into this revision.
  sort enum(name|committerdate|-committerdate): Sort order; "-committerdate" lists recent ones first.
switch_branch(repo_path, branch*): Changes the working tree to another branch.
  create bool: Create the branch first, from HEAD.
  discard_changes bool: Throw away local modifications that would be in the way.
merge(repo_path, message): Joins the history of another branch into the current branch,
    creating a merge commit unless it can fast-forward.
  source* str: Branch or revision to merge in.
  no_fast_forward bool: Always create a merge commit.
  squash bool: Combine the changes into the index without committing or recording the merge.
rebase(repo_path): Replays the current branch's commits one by one on top of another base, rewriting them.
  onto* str: Revision to replay the commits on.
  autosquash bool: Fold "fixup!" and "squash!" commits into their targets.
abort_rebase(repo_path): Stops a rebase in progress and returns the branch to where it was before the rebase began.
continue_rebase(repo_path): Resumes a paused rebase after its conflicts have been resolved and staged.
cherry_pick(repo_path): Applies the changes introduced by existing commits as new commits on the current branch.
  commits* str[]: Commits to apply, in order.
  no_commit bool: Apply the changes to the working tree and index without committing.
revert_commit(repo_path, revision*): Creates a new commit that undoes the changes of an earlier commit,
    leaving history intact.
  mainline int: For a merge commit, the parent number to revert to.
reset(repo_path, revision*): Moves the current branch to a revision.
    Soft keeps changes staged, mixed keeps them in the working tree, hard discards them.
  mode enum(soft|mixed|hard): What to do with the index and working tree; defaults to mixed.
log(repo_path, revision, paths): Lists commits reachable from a revision, newest first,
    with author, date and message.
  max_count int: Maximum number of commits; defaults to 50.
  since datetime: Only commits after this date.
  author str: Only commits whose author matches this pattern.
show_commit(repo_path, revision*): Shows a commit's metadata, message and full diff.
  stat_only bool: Only the per-file counts of changed lines.
diff_working_tree(repo_path, paths): Shows changes not yet committed: unstaged changes, or with staged
    the changes in the index.
  staged bool: Compare the index with HEAD instead of the working tree with the index.
diff_revisions(repo_path, paths): Shows the differences between two revisions as a unified diff.
  from_revision* str: Older revision.
  to_revision* str: Newer revision; defaults to HEAD.
  ignore_whitespace bool: Ignore changes in whitespace.
blame(repo_path): Shows, for each line of a file, the commit and author that last changed it.
  path* str: File to annotate.
  start_line int: First line to annotate.
  end_line int: Last line to annotate.
create_tag(repo_path, revision, message): Creates a tag on a commit. With a message the tag is annotated.
  name* str: Tag name, for example "v2.1.0".
  sign bool: GPG-sign the tag.
delete_tag(repo_path): Deletes a tag locally and optionally on the remote.
  name* str: Tag name.
  delete_remote bool: Also delete it on the remote.
list_tags(repo_path): Lists tags, optionally matching a pattern, sorted by version.
  pattern str: Glob pattern, for example "v2.*".
  contains str: Only tags that contain this commit.
stash_save(repo_path, message): Saves uncommitted changes on a stack and reverts the working tree to HEAD.
  include_untracked bool: Also stash untracked files.
  keep_index bool: Leave the staged changes in place.
stash_list(repo_path): Lists the saved stash entries, newest first, with their messages.
stash_apply(repo_path): Applies a stash entry to the working tree and keeps the entry on the stack.
  stash str: Entry such as "stash@{2}"; defaults to the newest.
stash_pop(repo_path): Applies a stash entry to the working tree and removes it from the stack if it applies cleanly.
  stash str: Entry such as "stash@{2}"; defaults to the newest.
stash_drop(repo_path): Deletes a stash entry without applying it.
  stash str: Entry such as "stash@{2}"; defaults to the newest.
show_stash(repo_path): Shows the diff a stash entry would apply.
  stash str: Entry such as "stash@{2}"; defaults to the newest.
add_remote(repo_path): Registers another repository under a name, so it can be fetched from and pushed to.
  name* str: Name for the remote, for example "upstream".
  url* str: URL of the repository.
remove_remote(repo_path, remote*): Forgets a remote along with its remote-tracking branches and settings.
list_remotes(repo_path): Lists configured remotes with their fetch and push URLs.
set_remote_url(repo_path, remote*): Changes the URL a remote fetches from and pushes to.
  url* str: New URL.
  push_only bool: Change only the push URL.
restore_files(repo_path, paths*): Discards uncommitted changes to files, restoring their content from the index
    or from a revision.
  source str: Revision to restore from; defaults to the index.
clean(repo_path, paths, force): Deletes untracked files from the working tree.
  directories bool: Also remove untracked directories.
  ignored bool: Also remove files git ignores.
  dry_run bool: List what would be removed.
grep(repo_path, revision, paths): Searches the tracked files of the working tree or of a revision
    for a pattern and lists the matches.
  pattern* str: Regular expression to find.
  ignore_case bool: Match without regard to letter case.
bisect_start(repo_path): Starts a binary search through history for the commit that introduced a bug.
  bad* str: A revision known to have the bug.
  good* str: A revision known not to have it.
bisect_mark(repo_path): Marks the commit the binary search has checked out as good or bad,
    and checks out the next one to test.
  verdict* enum(good|bad|skip): Result of testing the current commit.
bisect_reset(repo_path): Ends the binary search and returns to the branch checked out before it started.
reflog(repo_path): Lists where HEAD or a branch has pointed over time, including commits no longer reachable,
    to recover lost work.
  ref str: Reference to show; defaults to HEAD.
  max_count int: Maximum number of entries.
show_file_at_revision(repo_path, revision*): Returns the contents of a file as it was at a given revision.
  path* str: Path of the file in the repository.
list_files(repo_path, paths): Lists the files git tracks in the index.
  others bool: List untracked files instead.
  modified bool: Only files modified in the working tree.
get_config(repo_path): Reads a configuration value such as user.email.
  key* str: Configuration key.
  scope enum(local|global|system): Where to read it from; defaults to the merged value.
set_config(repo_path): Writes a configuration value such as user.name or core.autocrlf.
  key* str: Configuration key.
  value* str: New value.
  scope enum(local|global|system): Which configuration file to write; defaults to local.
add_submodule(repo_path): Adds another repository as a submodule at a path.
  url* str: URL of the submodule's repository.
  path* str: Where to place it in the working tree.
update_submodules(repo_path): Clones missing submodules and checks out the commits the superproject records.
  init bool: Initialize submodules not yet initialized.
  recursive bool: Also update nested submodules.
  remote bool: Update to the latest commit of each submodule's remote branch instead.
list_submodules(repo_path): Lists submodules with their paths, URLs and checked-out commits.
add_worktree(repo_path, branch): Checks out a branch into an additional working directory
    linked to the same repository.
  path* str: Directory of the new working tree.
remove_worktree(repo_path, force): Deletes a linked working tree.
  path* str: Directory of the working tree.
list_worktrees(repo_path): Lists the repository's linked working trees with their branches.
format_patch(repo_path): Writes commits out as email-ready patch files, one per commit.
  revision_range* str: Commits to export, for example "origin/main..HEAD".
  output_directory str: Where to write the .patch files.
apply_mailbox_patches(repo_path): Applies patch files produced by git_format_patch as commits,
    keeping their authors and messages.
  patch_files* str[]: Paths of the patch files, in order.
  three_way bool: Fall back to a three-way merge when a patch does not apply cleanly.
export_archive(repo_path, revision*): Writes the tree of a revision to a tar or zip file, without history.
  format enum(tar|tar.gz|zip): Archive format; defaults to tar.gz.
  output* str: Path of the archive to write.
  prefix str: Directory prefix for every entry.
collect_garbage(repo_path): Compresses the object database and removes unreachable objects to save space.
  aggressive bool: Spend more time for better compression.
  prune_older_than str: Prune unreachable objects older than this, for example "2.weeks.ago".
check_integrity(repo_path): Verifies the connectivity and validity of every object in the repository, like fsck.
  full bool: Also check packed objects and alternates.
summarize_contributors(repo_path, revision): Counts commits per author over a range, like shortlog -sn.
  since datetime: Only commits after this date.
  email bool: Group by email address as well as name.
describe(repo_path, revision): Names a commit after the nearest tag reachable from it, for example
    "v1.4.0-12-g3f2a1b", as used for build version strings.
  tags bool: Use lightweight tags too, not only annotated ones.
merge_base(repo_path): Finds the best common ancestor of two commits, the point where their histories diverged.
  first* str: First revision.
  second* str: Second revision.
rev_parse(repo_path, revision*): Resolves a revision expression to its full 40-character commit hash.
  short bool: Return the abbreviated hash.
count_objects(repo_path): Reports the number of loose and packed objects and the disk space the repository uses.
sparse_checkout(repo_path): Restricts the working tree to chosen directories of a large repository.
  directories* str[]: Directories to keep checked out.
  disable bool: Turn sparse checkout off and restore every file.
lfs_track(repo_path): Makes Git LFS store files matching a pattern as pointers, writing the rule to .gitattributes.
  pattern* str: Pattern of files to store in LFS, for example "*.psd".
lfs_pull(repo_path, remote): Downloads the large-file contents for LFS pointers in the current checkout.
  include str: Only files matching this pattern.
lfs_list_files(repo_path, revision): Lists the files stored in Git LFS at a revision, with their object ids.
add_note(repo_path, revision*): Attaches a note to a commit without changing the commit itself.
  note* str: Text of the note.
  ref str: Notes namespace; defaults to refs/notes/commits.
show_note(repo_path, revision*): Shows the note attached to a commit.
  ref str: Notes namespace; defaults to refs/notes/commits.
verify_commit(repo_path, revision*): Checks the GPG or SSH signature of a commit and reports the signer.
set_upstream(repo_path, branch): Sets which remote branch a local branch tracks, for pull and status.
  upstream* str: Remote branch, for example "origin/main".
ahead_behind(repo_path): Counts how many commits each of two branches has that the other does not.
  left* str: First branch.
  right* str: Second branch, for example "origin/main".
list_conflicts(repo_path): Lists the files with unresolved merge conflicts, with the kind of each conflict.
resolve_conflict(repo_path, paths*): Resolves conflicted files by taking one side entirely and stages the result.
  side* enum(ours|theirs): Which version to keep.
abort_merge(repo_path): Stops a conflicted merge and restores the state from before it began.
squash_commits(repo_path, message*): Combines the last few commits of the current branch into one commit.
  count* int: Number of commits at the tip to combine.
reword_commit(repo_path, revision*, message*): Changes the message of an earlier commit on the current branch,
    rewriting the commits after it.
move_file(repo_path): Renames or moves a tracked file and stages the rename.
  source* str: Current path.
  destination* str: New path.
remove_file(repo_path, paths*): Deletes tracked files from the working tree and stages the removal.
  cached bool: Stop tracking the files but keep them on disk.
add_ignore_rule(repo_path): Appends a pattern to .gitignore so matching untracked files are ignored.
  pattern* str: Pattern to ignore, for example "*.log" or "build/".
  global bool: Add it to the user's global excludes file instead.
check_ignore(repo_path, paths*): Tells whether paths are ignored and which rule in which file ignores each.
file_history(repo_path): Lists the commits that changed one file, following it across renames.
  path* str: File to trace.
  max_count int: Maximum number of commits.
search_commit_messages(repo_path, revision): Finds commits whose message matches a pattern.
  pattern* str: Regular expression matched against the message.
  ignore_case bool: Match without regard to letter case.
pickaxe_search(repo_path, revision): Finds commits that added or removed a given string in the code,
    for tracking down when something appeared or vanished.
  text* str: Exact string whose number of occurrences changed.
  regex bool: Treat text as a regular expression.
prune_remote_branches(repo_path, remote*): Deletes local remote-tracking branches whose branch no longer exists
    on the remote.
  dry_run bool: List what would be deleted.
install_hook(repo_path): Installs a client-side hook script, such as pre-commit or commit-msg.
  hook* enum(pre-commit|commit-msg|pre-push|post-checkout|post-merge|prepare-commit-msg): Hook to install.
  script* str: Contents of the script.
list_hooks(repo_path): Lists the hook scripts installed in the repository and whether each is executable.
create_bundle(repo_path): Packs refs and their history into one bundle file for transfer without a network.
  output* str: Path of the bundle file.
  revisions* str[]: Refs or ranges to include, for example "--all" or "main".
show_graph(repo_path, revision): Draws the commit history as a text graph showing branches and merges.
  all_branches bool: Include every branch.
  max_count int: Maximum number of commits.
range_diff(repo_path): Compares two versions of a series of commits, for example before and after a rebase,
    pairing commits and showing how each changed.
  old_range* str: The first version, for example "main..topic@{1}".
  new_range* str: The second version, for example "main..topic".
mirror(repo_path): Pushes every ref of the repository to another remote so it becomes an exact copy.
  target_url* str: URL of the repository to overwrite.
count_commits(repo_path): Counts the commits in a revision range.
  range* str: Range such as "v1.0..HEAD", or a single revision for everything reachable.
  no_merges bool: Leave out merge commits.
changed_files(repo_path): Lists the names of files that differ between two revisions, with the kind of change.
  from_revision* str: Older revision.
  to_revision str: Newer revision; defaults to HEAD.
create_orphan_branch(repo_path, branch*): Creates a branch with no history and switches to it,
    for example for a gh-pages site.
filter_history(repo_path, force): Rewrites the whole history to remove paths from every commit,
    for example a leaked secret or a huge file. Every commit hash changes.
  paths_to_remove* str[]: Paths to purge from history.
assume_unchanged(repo_path, paths*): Tells git to stop checking files for local modifications,
    so changes to them are not shown or committed.
  undo bool: Resume checking the files.
"""

_CALENDAR_SHARED = """
calendar_id str: Calendar identifier; "primary" is the signed-in user's main calendar.
event_id str: Identifier of an event.
task_list_id str: Identifier of a task list; "@default" is the user's default list.
task_id str: Identifier of a task.
time_min datetime: Lower bound (inclusive) of the time range, in RFC 3339 format.
time_max datetime: Upper bound (exclusive) of the time range, in RFC 3339 format.
time_zone str: IANA time zone name, for example "Europe/Berlin".
send_updates enum(all|external_only|none): Who receives email notifications about the change; defaults to all.
"""

_CALENDAR = """
list_calendars: Lists the calendars on the user's calendar list, with their access role and colours.
  min_access_role enum(free_busy_reader|reader|writer|owner): Only calendars the user has at least this role on.
  show_hidden bool: Include calendars hidden from the list.
get_calendar(calendar_id*): Returns a calendar's metadata: summary, description, time zone and location.
create_calendar(time_zone): Creates a new secondary calendar owned by the user.
  summary* str: Title of the calendar.
  description str: Description of the calendar.
update_calendar(calendar_id*, time_zone): Changes a calendar's title, description or time zone.
  summary str: New title.
  description str: New description.
delete_calendar(calendar_id*): Deletes a secondary calendar and all of its events. The primary calendar
    cannot be deleted; clear it instead.
clear_calendar(calendar_id*): Deletes every event of the user's primary calendar, keeping the calendar itself.
subscribe_calendar: Adds an existing calendar that the user can access, such as a colleague's or a public one,
    to the user's calendar list.
  id* str: Identifier or email address of the calendar to add.
  color_id str: Colour to show it in.
unsubscribe_calendar(calendar_id*): Removes a calendar from the user's calendar list without deleting it.
import_ics(calendar_id*): Imports the events of an iCalendar (.ics) file into a calendar,
    keeping their iCalUIDs so re-imports update rather than duplicate.
  ics_content* str: The iCalendar data.
export_ics(calendar_id*, time_min, time_max): Exports a calendar's events as an iCalendar (.ics) file.
list_events(calendar_id*, time_min, time_max, time_zone): Lists the events of a calendar in a time range,
    with recurring events expanded into single occurrences when asked.
  single_events bool: Expand recurring events into their occurrences.
  order_by enum(start_time|updated): Sort order; start_time needs single_events.
  max_results int: Maximum number of events per page; defaults to 250.
get_event(calendar_id*, event_id*, time_zone): Returns one event with its attendees, reminders,
    conference data and recurrence.
create_event(calendar_id*, send_updates): Creates an event, inviting its attendees.
    Recurring events take RRULE lines in recurrence.
  summary* str: Title of the event.
  start* datetime: Start time; for an all-day event, use start_date.
  end* datetime: End time.
  attendees email[]: Email addresses of the guests.
  location str: Free-form location.
  recurrence str[]: RRULE, EXRULE, RDATE and EXDATE lines.
quick_add_event(calendar_id*, send_updates): Creates an event from a line of natural-language text such as
    "Lunch with Ana at Luigi's tomorrow 1pm", working out the title, time and place.
  text* str: The text describing the event.
update_event(calendar_id*, event_id*, send_updates): Changes fields of an existing event, such as its title,
    time, location or description. Fields not given keep their values.
  summary str: New title.
  start datetime: New start time.
  end datetime: New end time.
  location str: New location.
  description str: New description.
delete_event(calendar_id*, event_id*, send_updates): Deletes an event. Deleting a recurring event's
    parent deletes every occurrence.
move_event(calendar_id*, event_id*, send_updates): Moves an event to another calendar, changing its organizer.
  destination_calendar_id* str: Calendar to move the event to.
list_event_instances(calendar_id*, event_id*, time_min, time_max): Lists the individual occurrences
    of a recurring event.
  show_deleted bool: Include cancelled occurrences.
cancel_occurrence(calendar_id*, event_id*, send_updates): Cancels a single occurrence of a recurring event,
    leaving the rest of the series unchanged.
  original_start_time* datetime: Start time of the occurrence to cancel.
duplicate_event(calendar_id*, event_id*): Creates a copy of an event, optionally on another day or calendar,
    without its attendees' responses.
  new_start datetime: Start of the copy; defaults to the original's start.
  destination_calendar_id str: Calendar for the copy; defaults to the same one.
add_attendees(calendar_id*, event_id*, send_updates): Invites more guests to an existing event.
  attendees* email[]: Email addresses to invite.
  optional bool: Mark the new guests as optional.
remove_attendee(calendar_id*, event_id*, send_updates): Removes a guest from an event's guest list.
  email* email: Email address of the guest.
respond_to_invitation(calendar_id*, event_id*): Sets the user's reply to an event they were invited to.
  response* enum(accepted|declined|tentative): The reply.
  comment str: Note to the organizer.
propose_new_time(event_id*): Replies tentatively or declines an invitation and suggests another time
    to the organizer.
  proposed_start* datetime: Suggested start.
  proposed_end* datetime: Suggested end.
  comment str: Note to the organizer.
forward_invitation(event_id*): Forwards a meeting request to other people with an optional note;
    the organizer is told who it was forwarded to.
  recipients* email[]: Who to forward it to.
  comment str: Note for the recipients.
list_attendee_responses(calendar_id*, event_id*): Returns each guest of an event with whether they accepted,
    declined, replied tentatively or have not replied yet.
query_free_busy(time_min*, time_max*, time_zone): Returns the busy intervals of people or calendars
    over a time range, without event details.
  items* str[]: Calendar ids or email addresses to check.
find_meeting_times(time_zone): Suggests time slots when all required attendees and a room are free,
    ranked by how many optional attendees can also come.
  attendees* email[]: Required attendees.
  optional_attendees email[]: Optional attendees.
  duration_minutes* int: Length of the meeting.
  window_start datetime: Earliest time to consider.
  window_end datetime: Latest time to consider.
list_rooms: Lists bookable meeting rooms with their building, floor, capacity and equipment.
  building_id str: Only rooms in this building.
  min_capacity int: Only rooms seating at least this many people.
book_room(calendar_id*, event_id*): Adds a meeting room to an event as a resource, reserving it if it is free.
  room_email* email: Resource email address of the room.
release_room(calendar_id*, event_id*): Removes a meeting room from an event so others can book it.
  room_email* email: Resource email address of the room.
list_resources: Lists bookable equipment and other non-room resources, such as projectors or pool cars.
  resource_type str: Only resources of this type.
add_reminder(calendar_id*, event_id*): Adds a popup or email reminder to an event,
    a set number of minutes before it starts.
  method* enum(popup|email): How to remind.
  minutes_before* int: Minutes before the start.
remove_reminder(calendar_id*, event_id*): Removes one of an event's reminders, or all of them.
  method enum(popup|email): Which kind to remove.
  minutes_before int: Which reminder to remove; all when omitted.
set_default_reminders(calendar_id*): Sets the reminders that new events on a calendar get automatically.
  reminders* obj[]: Reminders, each with method and minutes_before.
add_conference(calendar_id*, event_id*, send_updates): Attaches a video meeting link to an event,
    creating a new meeting on the chosen provider.
  provider enum(meet|teams|zoom): Conferencing provider; defaults to the calendar's default.
remove_conference(calendar_id*, event_id*, send_updates): Removes the video meeting link from an event.
set_event_color(calendar_id*, event_id*): Gives one event its own colour, overriding the calendar's colour.
  color_id* str: One of the event colour ids returned by calendar_list_colors.
list_colors: Returns the palettes of calendar and event colours, with their ids and hex values.
  kind enum(calendar|event): Which palette; both by default.
share_calendar(calendar_id*): Grants a person, group or domain a role on a calendar, such as seeing
    free/busy only or making changes.
  scope_type* enum(user|group|domain|default): Who to share with; default means the public.
  scope_value str: Email address or domain; omitted for default.
  role* enum(free_busy_reader|reader|writer|owner): The access granted.
list_calendar_permissions(calendar_id*): Lists who a calendar is shared with and the role each has.
update_calendar_permission(calendar_id*): Changes the role of an existing sharing rule on a calendar.
  rule_id* str: Identifier of the sharing rule.
  role* enum(free_busy_reader|reader|writer|owner): The new role.
revoke_calendar_access(calendar_id*): Deletes a sharing rule, so that person or group loses access to the calendar.
  rule_id* str: Identifier of the sharing rule.
get_working_hours: Returns a user's working hours: the days and the daily start and end times, with time zone.
  user email: Whose working hours to return; defaults to the signed-in user.
set_working_hours(time_zone): Sets the days and hours the user works, shown to people scheduling with them.
  days* enum(monday|tuesday|wednesday|thursday|friday|saturday|sunday)[]: Working days.
  start_time* str: Daily start, as "09:00".
  end_time* str: Daily end, as "17:30".
set_out_of_office(time_min*, time_max*): Blocks a period as out of office; new invitations in it are
    declined automatically with a message.
  decline_message str: Message sent with each automatic decline.
  decline_mode enum(all|new_only|none): Which conflicting invitations to decline.
clear_out_of_office(event_id*): Ends or removes an out-of-office block, so invitations are no longer declined.
create_focus_time(time_min*, time_max*): Blocks time for focused work; chat notifications are muted
    and new meetings can be declined automatically.
  auto_decline bool: Decline invitations that conflict.
  recurrence str[]: RRULE lines to repeat the block.
set_working_location(time_min*, time_max*): Records where the user works on given days:
    at home, at an office, or elsewhere.
  location_type* enum(home|office|custom): Kind of location.
  label str: Office or custom location name.
get_settings: Returns the user's calendar settings, such as time zone, week start, date format and default
    event length.
  setting str: Return only this setting, for example "timezone".
update_settings(time_zone): Changes the user's calendar settings.
  week_start enum(sunday|monday|saturday): First day of the week.
  default_event_length int: Default length of new events in minutes.
  hide_weekends bool: Hide Saturday and Sunday in views.
convert_time_zone: Converts a date and time from one time zone to another, taking daylight saving into account.
  datetime* str: Local date and time, such as "2024-03-31T09:00".
  from_zone* str: IANA name of the source time zone.
  to_zone* str: IANA name of the target time zone.
list_time_zones: Lists supported IANA time zones with their current UTC offsets.
  country str: ISO 3166 country code to filter by.
watch_events(calendar_id*): Subscribes a webhook to a calendar, so it is notified whenever events change.
  address* uri: HTTPS URL that receives the notifications.
  ttl_seconds int: How long the channel lives.
stop_channel: Stops a notification channel opened by calendar_watch_events.
  channel_id* str: Identifier of the channel.
  resource_id* str: Resource identifier returned when the channel was opened.
sync_events(calendar_id*): Returns only the events added, changed or deleted since a previous call,
    using a sync token, for keeping a local copy current.
  sync_token str: Token from the previous call; omit it for a full sync.
search_events(calendar_id*, time_min, time_max): Finds events whose title, description, location
    or attendees contain words.
  q* str: Free-text query.
list_birthdays(time_min, time_max): Lists the birthdays of the user's contacts that fall in a date range.
create_task(task_list_id*): Adds a task to a task list.
  title* str: Title of the task.
  notes str: Notes.
  due date: Due date.
  parent str: Parent task, to make this a subtask.
list_tasks(task_list_id*): Lists the tasks of a task list.
  show_completed bool: Include completed tasks; defaults to true.
  due_max datetime: Only tasks due before this time.
complete_task(task_list_id*, task_id*): Marks a task as done, recording when it was completed.
delete_task(task_list_id*, task_id*): Deletes a task from its list.
update_task(task_list_id*, task_id*): Changes a task's title, notes or due date.
  title str: New title.
  notes str: New notes.
  due date: New due date.
move_task(task_list_id*, task_id*): Moves a task to another position in its list, or under another parent task.
  previous str: Task to place it after; first when omitted.
  parent str: New parent task.
create_task_list: Creates a new task list.
  title* str: Title of the list.
delete_task_list(task_list_id*): Deletes a task list and all of its tasks.
list_task_lists: Lists the user's task lists.
  max_results int: Maximum number of lists.
clear_completed_tasks(task_list_id*): Hides every completed task of a list, removing it from the default view.
create_booking_page(time_zone): Creates an appointment booking page where others can pick a free slot
    in the user's calendar and book it.
  title* str: Title shown to people booking.
  duration_minutes* int: Length of each appointment.
  availability* obj: Weekly hours open for booking.
  buffer_minutes int: Gap to keep between appointments.
list_bookings(time_min, time_max): Lists appointments people have booked through the user's booking pages.
  booking_page_id str: Only bookings of this page.
cancel_booking: Cancels an appointment booked through a booking page and notifies the person who booked it.
  booking_id* str: Identifier of the booking.
  reason str: Message to the person who booked.
update_booking_availability(time_zone): Changes the weekly hours during which a booking page offers slots.
  booking_page_id* str: Identifier of the booking page.
  availability* obj: Weekly hours open for booking.
delete_booking_page: Deletes a booking page; existing appointments stay on the calendar.
  booking_page_id* str: Identifier of the booking page.
add_attachment(calendar_id*, event_id*): Attaches a file, given by URL, to an event so guests can open it.
  file_url* uri: URL of the file, for example a Drive link.
  title str: Name shown for the attachment.
remove_attachment(calendar_id*, event_id*): Removes an attached file from an event.
  file_url* uri: URL of the attachment to remove.
set_event_visibility(calendar_id*, event_id*): Sets whether an event's details are private,
    visible to those who can see the calendar, or public.
  visibility* enum(default|public|private|confidential): The visibility.
set_event_transparency(calendar_id*, event_id*): Sets whether an event blocks time, showing the user as busy,
    or leaves them shown as available.
  transparency* enum(opaque|transparent): opaque is busy, transparent is free.
update_recurrence(calendar_id*, event_id*, send_updates): Replaces the recurrence rule of a recurring series,
    for example to change it from weekly to every other week.
  recurrence* str[]: New RRULE, EXDATE and RDATE lines.
end_recurring_series(calendar_id*, event_id*, send_updates): Stops a recurring series after a date,
    keeping past occurrences and deleting later ones.
  last_date* date: Date of the last occurrence to keep.
list_holidays: Lists public holidays for a country and year.
  country* str: ISO 3166 country code.
  year* int: The year.
add_delegate: Gives another person delegate access to the user's calendar, so they can accept invitations
    and manage events on the user's behalf.
  delegate_email* email: Email address of the delegate.
  receive_invitations bool: Send meeting requests to the delegate too.
remove_delegate: Removes a person's delegate access to the user's calendar.
  delegate_email* email: Email address of the delegate.
list_delegates: Lists the people with delegate access to the user's calendar.
  include_permissions bool: Include each delegate's permissions.
email_attendees(calendar_id*, event_id*): Sends an email message to the guests of an event.
  subject* str: Subject of the email.
  body* str: Body of the email.
  include_declined bool: Also send it to guests who declined.
list_deleted_events(calendar_id*, time_min): Lists events deleted from a calendar in the last 30 days,
    which can still be restored.
restore_deleted_event(calendar_id*, event_id*): Restores an event deleted in the last 30 days.
meeting_time_report(time_min*, time_max*): Reports how many hours the user spent in meetings over a period,
    broken down by week and by the number of attendees.
  group_by enum(week|attendee_count|organizer): How to break the total down.
hide_calendar(calendar_id*): Hides a calendar in the calendar list so its events do not show in views,
    without unsubscribing from it.
  hidden* bool: Hide it, or show it again.
set_calendar_notifications(calendar_id*): Chooses which emails the user receives about a calendar,
    such as new invitations, changes, cancellations, replies and a daily agenda.
  notifications* enum(event_creation|event_change|event_cancellation|event_response|agenda)[]: Emails to receive.
transfer_event_ownership(calendar_id*, event_id*): Makes another person the organizer of an event,
    for example when the original organizer leaves the company.
  new_organizer* email: Email address of the new organizer.
get_event_by_uid(calendar_id*): Finds an event by its iCalendar UID, the identifier shared across calendar systems.
  ical_uid* str: iCalendar UID of the event.
update_attendee(calendar_id*, event_id*, send_updates): Marks a guest as optional or required,
    or changes how many additional guests they bring.
  email* email: Email address of the guest.
  optional bool: Whether the guest is optional.
  additional_guests int: Number of extra people the guest brings.
list_buildings: Lists the buildings with bookable rooms, with their addresses and floors.
  max_results int: Maximum number of buildings.
add_travel_time(calendar_id*, event_id*): Blocks travel time before and after an event.
  minutes_before int: Travel time before the event.
  minutes_after int: Travel time after the event.
cancel_meeting(calendar_id*, event_id*): As the organizer, cancels a meeting and sends every attendee
    a cancellation with a message.
  comment str: Message to the attendees.
snooze_reminder(event_id*): Postpones an event's reminder so it fires again later.
  new_reminder_time* datetime: When to remind again.
dismiss_reminder(event_id*): Dismisses a fired reminder so it does not show again.
create_calendar_group: Creates a group to organize calendars in the sidebar, such as "Team calendars".
  name* str: Name of the group.
list_calendar_groups: Lists the user's calendar groups and the calendars in each.
  include_calendars bool: Include the calendars in each group.
list_reminders(time_min*, time_max*): Lists the reminders due in a time window across all of the user's
    calendars, with the events they belong to.
"""

_PAYMENTS_SHARED = """
customer_id str: Identifier of a customer, such as "cus_9s6XKzkNRiz8i3".
amount int: Amount in the currency's smallest unit, for example 1099 for $10.99.
currency str: Three-letter ISO currency code, lowercase, for example "usd".
metadata obj: Up to 50 key-value pairs stored on the object for your own use.
limit int: Maximum number of objects to return, from 1 to 100; defaults to 10.
starting_after str: Cursor for pagination: the id of the last object of the previous page.
idempotency_key str: Key that makes retries of this request safe; a repeated key returns the first result.
subscription_id str: Identifier of a subscription, such as "sub_1MowQVLkdIwHu7ix".
invoice_id str: Identifier of an invoice, such as "in_1MtHbELkdIwHu7ixl4OzzPMv".
payment_intent_id str: Identifier of a PaymentIntent, such as "pi_3MtwBwLkdIwHu7ix28a3tqPa".
"""

_PAYMENTS = """
create_customer(metadata, idempotency_key): Creates a customer, the object that stores payment methods,
    subscriptions and billing details for one buyer.
  email email: The customer's email address.
  name str: Full name or business name.
  phone str: Phone number.
  address obj: Billing address with line1, city, postal_code and country.
get_customer(customer_id*): Retrieves a customer, including their default payment method and balance.
update_customer(customer_id*, metadata): Updates a customer's email, name, address or other details.
  email email: New email address.
  name str: New name.
  address obj: New billing address.
delete_customer(customer_id*): Permanently deletes a customer and cancels their active subscriptions.
list_customers(limit, starting_after): Lists customers, newest first.
  email email: Only customers with this exact email.
  created_after datetime: Only customers created after this time.
search_customers(limit): Searches customers with a query language over fields such as name, email and metadata.
  query* str: Search query, for example "email~'example.com' AND metadata['plan']:'pro'".
attach_payment_method(customer_id*): Attaches a saved payment method, such as a card, to a customer
    so it can be charged later.
  payment_method_id* str: Identifier of the payment method, such as "pm_1MqM05LkdIwHu7ix".
detach_payment_method: Detaches a payment method from its customer; it can no longer be used.
  payment_method_id* str: Identifier of the payment method.
list_payment_methods(customer_id*, limit): Lists a customer's saved payment methods.
  type enum(card|sepa_debit|us_bank_account|paypal|link): Only methods of this type.
set_default_payment_method(customer_id*): Sets the payment method used by default for a customer's invoices
    and subscriptions.
  payment_method_id* str: Identifier of the payment method.
create_payment_intent(amount*, currency*, customer_id, metadata, idempotency_key): Creates a PaymentIntent,
    which tracks collecting one payment from a customer through authentication and confirmation.
  payment_method_id str: Payment method to charge.
  capture_method enum(automatic|manual): manual only authorizes the amount, to be captured later.
  confirm bool: Confirm the PaymentIntent immediately.
confirm_payment_intent(payment_intent_id*, idempotency_key): Confirms that the customer intends to pay,
    attempting the payment; it may require 3-D Secure authentication next.
  payment_method_id str: Payment method to use.
  return_url uri: Where to send the customer after authentication.
capture_payment_intent(payment_intent_id*, idempotency_key): Captures the funds of a PaymentIntent that was
    only authorized, charging the customer. Uncaptured authorizations expire after 7 days.
  amount_to_capture int: Capture less than the authorized amount; the rest is released.
cancel_payment_intent(payment_intent_id*): Cancels a PaymentIntent that has not succeeded,
    releasing any authorized funds.
  cancellation_reason enum(duplicate|fraudulent|requested_by_customer|abandoned): Why it was cancelled.
get_payment_intent(payment_intent_id*): Retrieves a PaymentIntent with its status, amount
    and the latest charge.
list_payment_intents(customer_id, limit, starting_after): Lists PaymentIntents, newest first.
  created_after datetime: Only those created after this time.
increment_authorization(payment_intent_id*, amount*): Raises the authorized amount of an uncaptured card payment,
    for example when a hotel guest adds charges before checkout.
get_charge: Retrieves a charge: the amount, outcome, card details, risk evaluation and receipt URL.
  charge_id* str: Identifier of the charge, such as "ch_3MmlLrLkdIwHu7ix0snN0B15".
list_charges(customer_id, limit, starting_after): Lists charges, newest first.
  payment_intent_id str: Only charges of this PaymentIntent.
refund_charge(amount, metadata, idempotency_key): Refunds a charge in full or in part;
    the money returns to the customer's card in 5 to 10 business days.
  charge_id* str: Identifier of the charge to refund.
  reason enum(duplicate|fraudulent|requested_by_customer): Why it is refunded.
get_refund: Retrieves a refund and its status.
  refund_id* str: Identifier of the refund, such as "re_1Nispe2eZvKYlo2Cd31jOCgZ".
list_refunds(limit, starting_after): Lists refunds, newest first.
  charge_id str: Only refunds of this charge.
cancel_refund: Cancels a refund that is still pending, such as one waiting for the customer to act.
  refund_id* str: Identifier of the refund.
create_product(metadata): Creates a product, the goods or service you sell; prices are attached to it.
  name* str: Name shown to customers.
  description str: Description shown to customers.
  images uri[]: Up to 8 image URLs.
update_product(metadata): Changes a product's name, description or images.
  product_id* str: Identifier of the product, such as "prod_NWjs8kKbJWmuuc".
  name str: New name.
  description str: New description.
archive_product: Archives a product so it can no longer be added to new purchases; existing subscriptions continue.
  product_id* str: Identifier of the product.
list_products(limit, starting_after): Lists products.
  active bool: Only active or only archived products.
create_price(currency*, metadata): Creates a price for a product: a one-time amount or a recurring one
    billed every interval.
  product_id* str: Product the price is for.
  unit_amount* int: Amount per unit in the smallest currency unit.
  interval enum(day|week|month|year): Billing interval, for a recurring price.
  usage_type enum(licensed|metered): metered bills by reported usage.
list_prices(limit, starting_after): Lists prices, optionally of one product.
  product_id str: Only prices of this product.
  active bool: Only active or inactive prices.
deactivate_price: Marks a price inactive so it can no longer be used for new purchases.
  price_id* str: Identifier of the price, such as "price_1MoBy5LkdIwHu7ix".
create_coupon(currency, metadata): Creates a coupon: a percentage or fixed amount off, once, for some months,
    or forever.
  percent_off num: Percentage off, between 0 and 100.
  amount_off int: Fixed amount off, in the smallest currency unit.
  duration* enum(once|repeating|forever): How long the discount applies.
  duration_in_months int: For repeating, how many months.
  max_redemptions int: How many times it can be redeemed in total.
delete_coupon: Deletes a coupon; customers who already have its discount keep it.
  coupon_id* str: Identifier of the coupon.
list_coupons(limit, starting_after): Lists coupons.
  created_after datetime: Only coupons created after this time.
create_promotion_code(metadata): Creates a customer-facing code, such as "SPRING25", that redeems a coupon.
  coupon_id* str: Coupon the code applies.
  code str: The code customers type; generated when omitted.
  expires_at datetime: When the code stops working.
  first_time_transaction bool: Only for customers with no earlier payment.
deactivate_promotion_code: Turns off a promotion code so it can no longer be redeemed.
  promotion_code_id* str: Identifier of the promotion code.
create_subscription(customer_id*, metadata, idempotency_key): Subscribes a customer to recurring prices;
    invoices are created and charged every billing period.
  items* obj[]: Prices and quantities, each {price, quantity}.
  trial_period_days int: Days of free trial before the first charge.
  coupon str: Coupon to apply.
  collection_method enum(charge_automatically|send_invoice): Charge the default payment method or email invoices.
get_subscription(subscription_id*): Retrieves a subscription with its items, status and current period.
update_subscription(subscription_id*, metadata): Changes a subscription's price or quantity,
    with proration for the rest of the period.
  items* obj[]: New items, each {id or price, quantity}.
  proration_behavior enum(create_prorations|always_invoice|none): How to bill the change.
cancel_subscription(subscription_id*): Cancels a subscription immediately, or at the end of the period
    already paid for.
  at_period_end bool: Keep it active until the current period ends.
  invoice_now bool: Invoice outstanding usage right away.
pause_subscription(subscription_id*): Pauses collecting payment on a subscription; invoices are voided
    or kept as drafts until it resumes.
  behavior* enum(void|keep_as_draft|mark_uncollectible): What to do with invoices while paused.
  resumes_at datetime: When to resume automatically.
resume_subscription(subscription_id*): Resumes collecting payment on a paused subscription.
  billing_cycle_anchor enum(now|unchanged): Restart the billing cycle now or keep it.
list_subscriptions(customer_id, limit, starting_after): Lists subscriptions.
  status enum(active|past_due|trialing|canceled|paused|all): Only subscriptions with this status.
  price_id str: Only subscriptions to this price.
apply_coupon(subscription_id*): Applies a coupon's discount to an existing subscription.
  coupon_id* str: Identifier of the coupon.
add_subscription_item(subscription_id*): Adds another price to a subscription, such as an add-on.
  price_id* str: Price to add.
  quantity int: Quantity; defaults to 1.
remove_subscription_item: Removes one price from a subscription, keeping the rest.
  subscription_item_id* str: Identifier of the item, such as "si_NcLYdDxLHxlFo7".
  clear_usage bool: Delete the item's reported usage.
report_usage(idempotency_key): Records usage for a metered price, billed at the end of the period.
  subscription_item_id* str: Metered item the usage belongs to.
  quantity* int: Units used.
  timestamp datetime: When the usage happened; defaults to now.
  action enum(increment|set): Add to or replace the total for that time.
create_invoice(customer_id*, metadata): Creates a draft invoice for a customer that collects pending invoice items.
  collection_method enum(charge_automatically|send_invoice): Charge or email it when finalized.
  days_until_due int: For send_invoice, days the customer has to pay.
  description str: Memo shown on the invoice.
add_invoice_item(customer_id*, amount*, currency*, invoice_id): Adds a one-off line item to a draft invoice,
    or to the customer's next invoice.
  description str: Description of the line.
finalize_invoice(invoice_id*): Finalizes a draft invoice so it can no longer be edited and can be paid.
  auto_advance bool: Let the invoice be collected automatically.
send_invoice(invoice_id*): Emails a finalized invoice to the customer with a link to pay it.
pay_invoice(invoice_id*): Attempts to collect payment for an open invoice now.
  payment_method_id str: Payment method to charge instead of the default.
  paid_out_of_band bool: Mark it paid because it was paid outside the platform, such as by cheque.
void_invoice(invoice_id*): Voids a finalized invoice, cancelling it while keeping a record; it cannot be undone.
mark_invoice_uncollectible(invoice_id*): Marks an open invoice as uncollectible, a bad debt, for accounting.
get_invoice(invoice_id*): Retrieves an invoice with its lines, totals, status and hosted payment page URL.
list_invoices(customer_id, subscription_id, limit, starting_after): Lists invoices, newest first.
  status enum(draft|open|paid|uncollectible|void): Only invoices with this status.
preview_upcoming_invoice(customer_id*, subscription_id): Shows what the customer's next invoice will contain,
    including the prorations a planned change would create.
  subscription_items obj[]: Proposed new items, to preview a change.
download_invoice_pdf(invoice_id*): Returns a URL to the PDF of a finalized invoice.
delete_draft_invoice(invoice_id*): Permanently deletes a draft invoice. Finalized invoices must be voided instead.
create_credit_note(invoice_id*, amount, metadata): Reduces the amount owed on a finalized invoice,
    crediting the customer's balance or refunding the difference.
  reason enum(duplicate|fraudulent|order_change|product_unsatisfactory): Why the invoice is reduced.
  refund_amount int: Part of the credit to refund to the payment method.
void_credit_note: Voids a credit note, reversing its adjustment to the invoice.
  credit_note_id* str: Identifier of the credit note.
list_credit_notes(invoice_id, customer_id, limit): Lists credit notes.
list_disputes(limit, starting_after): Lists disputes, the chargebacks customers have filed with their bank.
  status enum(warning_needs_response|needs_response|under_review|won|lost): Only disputes with this status.
get_dispute: Retrieves a dispute with its reason, amount, evidence due date and status.
  dispute_id* str: Identifier of the dispute, such as "dp_1MtJUT2eZvKYlo2CNaw2HvEv".
submit_dispute_evidence(metadata): Uploads evidence, such as receipts and shipping records,
    to challenge a dispute and submits it to the bank.
  dispute_id* str: Identifier of the dispute.
  evidence* obj: Evidence fields, such as customer_communication and shipping_tracking_number.
  submit bool: Submit now; otherwise the evidence is saved for later.
close_dispute: Accepts a dispute as lost, conceding it instead of submitting evidence.
  dispute_id* str: Identifier of the dispute.
get_balance: Returns the account's balance: funds available to pay out and funds still pending, per currency.
  currency str: Only this currency.
list_balance_transactions(currency, limit, starting_after): Lists every movement of funds through the balance,
    with fees and net amounts, for reconciliation.
  type enum(charge|refund|payout|adjustment|transfer|stripe_fee): Only this kind of transaction.
  payout_id str: Only transactions settled in this payout.
create_payout(amount*, currency*, metadata): Sends funds from the available balance to the account's bank account.
  method enum(standard|instant): instant arrives in minutes, for a fee.
  destination str: Bank account or card to pay out to.
cancel_payout: Cancels a payout that has not yet been sent to the bank; funds return to the balance.
  payout_id* str: Identifier of the payout, such as "po_1OaFDbEcg9tTZuTg".
list_payouts(limit, starting_after): Lists payouts to the bank, newest first.
  status enum(paid|pending|in_transit|canceled|failed): Only payouts with this status.
get_payout: Retrieves a payout with its arrival date and status.
  payout_id* str: Identifier of the payout.
create_transfer(amount*, currency*, metadata, idempotency_key): Moves funds from the platform's balance
    to a connected account, for example a marketplace seller.
  destination* str: Connected account, such as "acct_1032D82eZvKYlo2C".
  source_transaction str: Charge the funds come from.
reverse_transfer(amount): Takes back funds sent to a connected account, in full or in part.
  transfer_id* str: Identifier of the transfer.
list_transfers(limit, starting_after): Lists transfers to connected accounts.
  destination str: Only transfers to this connected account.
create_connected_account(metadata): Creates an account for a seller or service provider on the platform,
    which can then receive transfers and payouts.
  type* enum(standard|express|custom): Kind of connected account.
  country str: Two-letter country code.
  email email: The account holder's email.
get_connected_account: Retrieves a connected account with its capabilities and the requirements still due.
  account_id* str: Identifier of the connected account.
create_account_link: Creates a single-use link that takes a connected account's owner through onboarding
    to provide identity and bank details.
  account_id* str: Identifier of the connected account.
  refresh_url* uri: Where to send the user if the link expired.
  return_url* uri: Where to send the user when done.
list_connected_accounts(limit, starting_after): Lists the platform's connected accounts.
  created_after datetime: Only accounts created after this time.
create_checkout_session(customer_id, metadata): Creates a hosted payment page session
    and returns its URL to redirect the buyer to.
  line_items* obj[]: Prices and quantities to sell.
  mode* enum(payment|subscription|setup): One-time payment, subscription or saving a card.
  success_url* uri: Where to send the buyer after payment.
  cancel_url uri: Where to send the buyer who cancels.
  allow_promotion_codes bool: Show a promotion code field.
expire_checkout_session: Expires an open checkout session so the buyer can no longer complete it.
  session_id* str: Identifier of the session, such as "cs_test_a1b2c3".
list_checkout_line_items(limit): Lists what was bought in a checkout session.
  session_id* str: Identifier of the session.
create_payment_link(metadata): Creates a shareable URL that opens a hosted payment page for fixed items,
    reusable by any number of buyers.
  line_items* obj[]: Prices and quantities.
  after_completion_url uri: Where to redirect buyers after payment.
deactivate_payment_link: Turns off a payment link so it no longer accepts payments.
  payment_link_id* str: Identifier of the payment link, such as "plink_1MoC3ULkdIwHu7ix".
create_tax_rate: Creates a tax rate, such as 19% German VAT, to apply to invoices and subscriptions.
  display_name* str: Name shown on invoices, such as "VAT".
  percentage* num: The rate in percent.
  inclusive* bool: Whether prices already include the tax.
  jurisdiction str: Where the tax applies, such as "DE".
list_tax_rates(limit, starting_after): Lists tax rates.
  active bool: Only active or archived rates.
calculate_tax(currency*): Calculates the tax owed on a sale for a customer address, line by line.
  line_items* obj[]: Amounts and tax codes of the lines.
  customer_address* obj: Address used to determine the jurisdiction.
create_webhook_endpoint(metadata): Registers a URL to receive event notifications,
    such as payment_intent.succeeded.
  url* uri: HTTPS URL of the endpoint.
  enabled_events* str[]: Event types to send, or ["*"] for all.
delete_webhook_endpoint: Deletes a webhook endpoint; it receives no more events.
  webhook_endpoint_id* str: Identifier of the endpoint, such as "we_1Mr5jULkdIwHu7ix".
list_webhook_endpoints(limit): Lists registered webhook endpoints and the events each receives.
list_events(limit, starting_after): Lists the events that happened on the account in the last 30 days,
    such as charges succeeding or invoices being paid.
  type str: Only events of this type, for example "invoice.paid".
  delivery_success bool: Only events whose webhook delivery succeeded or failed.
resend_event: Sends an event to a webhook endpoint again, for example after the endpoint was down.
  event_id* str: Identifier of the event, such as "evt_1NG8Du2eZvKYlo2CUI79vXWy".
  webhook_endpoint_id* str: Endpoint to deliver it to.
create_setup_intent(customer_id, metadata): Creates a SetupIntent to save a customer's card for future payments
    without charging it now, running authentication up front.
  usage enum(on_session|off_session): Whether later payments happen with the customer present.
verify_microdeposits(payment_intent_id*): Verifies a customer's US bank account by the amounts of the two small
    deposits sent to it, so the account can be debited.
  amounts* int[]: The two deposit amounts in cents, as the customer read them on their statement.
create_quote(customer_id*, metadata): Creates a draft quote, a priced offer a customer can accept
    to start an invoice or subscription.
  line_items* obj[]: Prices and quantities.
  expires_at datetime: When the offer lapses.
finalize_quote: Finalizes a draft quote so it can be sent to the customer and accepted.
  quote_id* str: Identifier of the quote, such as "qt_1Mr7wVLkdIwHu7ix".
accept_quote: Accepts a finalized quote, creating the invoice or subscription it describes.
  quote_id* str: Identifier of the quote.
run_report: Starts a financial report run, such as balance summary or payout reconciliation,
    producing a downloadable CSV file.
  report_type* enum(balance.summary.1|payout_reconciliation.summary.1|activity.itemized.2): Report to run.
  interval_start* datetime: Start of the reporting period.
  interval_end* datetime: End of the reporting period.
block_list_add: Adds a value, such as a card fingerprint, email or IP address, to a fraud-prevention list
    so matching payments are blocked.
  value_list_id* str: The list, such as the built-in card fingerprint block list.
  value* str: The value to add.
approve_review: Approves a payment that fraud screening placed in manual review, releasing it.
  review_id* str: Identifier of the review, such as "prv_1NVyFt2eZvKYlo2CjubqF1xm".
adjust_customer_balance(customer_id*, amount*, currency*): Adds a credit or debit to a customer's balance,
    applied to their next invoices. A negative amount is a credit.
  description str: Why the balance is adjusted.
"""

_EMAIL_SHARED = """
message_id str: Identifier of a message in the mailbox.
thread_id str: Identifier of a conversation thread.
message_ids str[]: Identifiers of the messages, at most 1,000.
to email[]: Primary recipients.
cc email[]: Carbon-copy recipients.
subject str: Subject line.
body str: Message body; HTML when html is true.
html bool: Send the body as HTML rather than plain text.
"""

_EMAIL = """
send_message(to*, cc, subject*, body*, html): Composes a new email and sends it immediately from the user's address.
  bcc email[]: Blind-copy recipients.
  attachments obj[]: Files to attach, each {filename, content_base64, mime_type}.
  reply_to email: Address replies should go to.
reply_to_message(message_id*, body*, html): Sends a reply in the same thread as a received message,
    quoting it and setting In-Reply-To and References.
  reply_all bool: Reply to the sender and every other recipient.
forward_message(message_id*, to*, body): Forwards a received message, with its attachments, to other people.
get_message(message_id*): Retrieves one message with its headers, body parts and attachment metadata.
  format enum(full|metadata|minimal): How much of the message to return.
list_messages: Lists messages in the mailbox, newest first, optionally only those with certain labels.
  label_ids str[]: Only messages carrying all of these labels, such as INBOX or UNREAD.
  max_results int: Maximum number of messages per page.
  page_token str: Token of the page to return.
  include_spam_trash bool: Include messages in Spam and Trash.
search_messages: Finds messages matching a search query with operators such as from:, has:attachment,
    older_than: and subject:.
  query* str: Search query, for example "from:billing@example.com has:attachment after:2024/01/01".
  max_results int: Maximum number of messages.
delete_message(message_id*): Permanently and immediately deletes a message, bypassing Trash. It cannot be recovered.
trash_message(message_id*): Moves a message to Trash, where it is deleted after 30 days.
untrash_message(message_id*): Takes a message out of Trash and puts it back where it was.
modify_labels(message_id*): Adds labels to and removes labels from one message.
  add_label_ids str[]: Labels to add.
  remove_label_ids str[]: Labels to remove.
mark_read(message_ids*): Marks messages as read.
mark_unread(message_ids*): Marks messages as unread, so they show as new again.
star_message(message_id*): Stars a message, or removes its star.
  starred* bool: Whether the message should be starred.
archive_message(message_id*): Archives a message: removes it from the inbox but keeps it under All Mail.
move_to_folder(message_id*): Moves a message to an IMAP folder, such as "Receipts/2024", removing it
    from its current folder.
  folder* str: Destination folder path.
batch_delete(message_ids*): Permanently deletes many messages in one request; they cannot be recovered.
batch_modify(message_ids*): Adds and removes labels on many messages in one request.
  add_label_ids str[]: Labels to add.
  remove_label_ids str[]: Labels to remove.
get_raw_message(message_id*): Returns a message's complete RFC 2822 source, headers and MIME parts included,
    base64url-encoded.
import_message: Adds a message to the mailbox as if it had been received, running spam checks and filters,
    without sending anything.
  raw* str: The RFC 2822 message, base64url-encoded.
  label_ids str[]: Labels to put on it.
  never_mark_spam bool: Skip the spam classifier.
get_attachment(message_id*): Downloads one attachment of a message, base64url-encoded.
  attachment_id* str: Identifier of the attachment.
list_attachments(message_id*): Lists a message's attachments with their file names, types and sizes.
get_thread(thread_id*): Retrieves a whole conversation with every message in it, oldest first.
  format enum(full|metadata|minimal): How much of each message to return.
list_threads: Lists conversations in the mailbox, newest activity first.
  query str: Only threads matching this search query.
  label_ids str[]: Only threads with these labels.
  max_results int: Maximum number of threads.
trash_thread(thread_id*): Moves every message of a conversation to Trash.
mute_thread(thread_id*): Mutes a conversation so new replies skip the inbox and are archived automatically.
delete_thread(thread_id*): Permanently deletes every message of a conversation, bypassing Trash.
create_draft(to, cc, subject, body, html): Saves a new unsent message as a draft.
  in_reply_to str: Message this draft replies to.
update_draft(to, cc, subject, body, html): Replaces the contents of an existing draft.
  draft_id* str: Identifier of the draft.
send_draft: Sends an existing draft to its recipients and removes it from Drafts.
  draft_id* str: Identifier of the draft.
delete_draft: Discards a draft permanently.
  draft_id* str: Identifier of the draft.
list_drafts: Lists the user's drafts.
  query str: Only drafts matching this search query.
  max_results int: Maximum number of drafts.
create_label: Creates a user label for organizing messages.
  name* str: Label name; "/" nests it, as in "Clients/Acme".
  background_color str: Hex colour of the label.
  show_in_list enum(labelShow|labelShowIfUnread|labelHide): Whether it shows in the label list.
update_label: Renames a label or changes its colour and visibility.
  label_id* str: Identifier of the label.
  name str: New name.
  background_color str: New hex colour.
delete_label: Deletes a user label and removes it from every message that had it; the messages stay.
  label_id* str: Identifier of the label.
list_labels: Lists system and user labels.
  type enum(system|user): Only labels of this kind.
get_label: Returns a label with its counts of total and unread messages and threads.
  label_id* str: Identifier of the label, such as INBOX.
create_filter: Creates a rule that acts on incoming mail matching criteria, for example labelling,
    archiving or forwarding it.
  criteria* obj: What to match: from, to, subject, query, has_attachment, size.
  action* obj: What to do: add_label_ids, remove_label_ids, forward, mark_read.
delete_filter: Deletes a mail filter rule.
  filter_id* str: Identifier of the filter.
list_filters: Lists the mail filter rules with their criteria and actions.
  max_results int: Maximum number of filters.
add_forwarding_address: Registers an address that mail may be forwarded to; it must confirm by email first.
  forwarding_email* email: The address to forward to.
enable_auto_forwarding: Turns on forwarding of every new incoming message to a confirmed address.
  email_address* email: Confirmed forwarding address.
  disposition enum(leaveInInbox|archive|trash|markRead): What to do with the user's copy.
disable_auto_forwarding: Stops forwarding incoming mail automatically.
  keep_address bool: Keep the forwarding address registered.
set_vacation_responder(subject): Turns on an automatic reply sent to people who email the user during a period.
  response_body* str: Text of the automatic reply.
  start_time datetime: When to start replying.
  end_time datetime: When to stop replying.
  restrict_to_contacts bool: Only reply to people in the user's contacts.
disable_vacation_responder: Turns off the automatic away reply.
  keep_message bool: Keep the reply text for next time.
update_signature: Sets the signature appended to messages sent from an address.
  send_as_email* email: Address the signature belongs to.
  signature* str: Signature, may be HTML.
add_send_as_alias: Adds another address the user can send mail from, such as a shared support address.
  send_as_email* email: The address to send as.
  display_name str: Name shown as sender.
  reply_to email: Reply-to address for mail sent as it.
verify_send_as_alias: Sends the verification email for a send-as address again.
  send_as_email* email: The address to verify.
delete_send_as_alias: Removes an address the user could send mail from.
  send_as_email* email: The address to remove.
list_send_as_aliases: Lists the addresses the user can send mail from, with their signatures and verification.
  verified_only bool: Only verified addresses.
add_delegate: Lets another user read, send and delete mail in this mailbox on the user's behalf.
  delegate_email* email: Email address of the delegate.
remove_delegate: Removes another user's delegated access to this mailbox.
  delegate_email* email: Email address of the delegate.
update_imap_settings: Turns IMAP access on or off and sets how IMAP deletes and folder sizes behave.
  enabled* bool: Whether IMAP access is on.
  expunge_behavior enum(archive|trash|deleteForever): What an IMAP delete does.
update_pop_settings: Sets whether POP can download mail and what happens to messages once downloaded.
  access_window* enum(disabled|fromNowOn|allMail): Which mail POP can download.
  disposition enum(leaveInInbox|archive|trash|markRead): What to do with a downloaded message.
watch_mailbox: Subscribes a Pub/Sub topic to push notifications whenever the mailbox changes. Renew every 7 days.
  topic_name* str: Full Pub/Sub topic name.
  label_ids str[]: Only changes to messages with these labels.
stop_watch: Stops push notifications for the mailbox.
  user_id str: Mailbox to stop; defaults to the signed-in user.
list_history: Lists every change to the mailbox since a history id, such as messages added, deleted or relabelled,
    for incremental sync.
  start_history_id* str: History id from a previous sync.
  history_types enum(messageAdded|messageDeleted|labelAdded|labelRemoved)[]: Kinds of change to list.
block_sender: Blocks an address, so its future messages go straight to Spam.
  sender* email: Address to block.
unblock_sender: Removes an address from the blocked senders.
  sender* email: Address to unblock.
list_blocked_senders: Lists the addresses and domains whose mail is sent straight to Spam.
  max_results int: Maximum number of entries.
report_spam(message_ids*): Moves messages to Spam and reports them, teaching the spam filter.
mark_not_spam(message_ids*): Moves messages out of Spam into the inbox and tells the filter they are legitimate.
schedule_send(to*, cc, subject*, body*, html): Composes a message and sends it automatically at a later time.
  send_at* datetime: When to send it.
cancel_scheduled_send(message_id*): Cancels a scheduled message before it goes out and turns it back into a draft.
snooze_message(message_id*): Removes a message from the inbox until a chosen time, when it comes back as new.
  until* datetime: When it returns to the inbox.
create_template(subject*, html): Creates a reusable transactional email template with {{handlebars}} placeholders.
  name* str: Name of the template.
  html_content* str: Body with placeholders.
  text_content str: Plain-text alternative.
update_template(subject, html): Creates a new version of a template's content and makes it active.
  template_id* str: Identifier of the template.
  html_content str: New body.
delete_template: Deletes a transactional email template and all of its versions.
  template_id* str: Identifier of the template.
list_templates: Lists transactional email templates with their active versions.
  page_size int: Templates per page.
render_template: Renders a template with sample data and returns the resulting subject and HTML,
    without sending anything.
  template_id* str: Identifier of the template.
  data* obj: Values for the placeholders.
send_templated_email(to*): Sends a transactional email built from a stored template filled with per-message data.
  template_id* str: Identifier of the template.
  data* obj: Values for the placeholders.
  from_email* email: Sender address on a verified domain.
send_bulk_email: Sends one template to up to 1,000 recipients in one call, each with their own placeholder values.
  template_id* str: Identifier of the template.
  personalizations* obj[]: One per recipient: {to, data}.
  from_email* email: Sender address on a verified domain.
list_bounces: Lists addresses whose mail bounced, with the bounce reason and time.
  start_time datetime: Only bounces after this time.
  limit int: Maximum number of entries.
list_spam_reports: Lists recipients who marked the account's email as spam.
  start_time datetime: Only reports after this time.
  limit int: Maximum number of entries.
add_to_suppression_list: Stops all sending to addresses, for example after an unsubscribe request.
  emails* email[]: Addresses to suppress.
  group_id str: Suppress only for this unsubscribe group.
remove_from_suppression_list: Allows sending to an address again by taking it off the suppression list.
  email* email: Address to remove.
  group_id str: Remove only from this unsubscribe group.
add_sending_domain: Registers a domain for sending and returns the DNS records (SPF, DKIM, return path)
    to publish for it.
  domain* str: The domain, such as "mail.example.com".
  automatic_security bool: Let the service manage the DKIM keys.
verify_sending_domain: Checks that a sending domain's DNS records are published correctly and marks it verified.
  domain_id* str: Identifier of the domain.
list_sending_domains: Lists the domains set up for sending with their verification status.
  verified_only bool: Only verified domains.
delete_sending_domain: Removes a domain from the domains mail can be sent from.
  domain_id* str: Identifier of the domain.
get_delivery_stats: Returns counts of requests, deliveries, opens, clicks, bounces and spam reports per day.
  start_date* date: First day.
  end_date date: Last day; defaults to today.
  aggregated_by enum(day|week|month): Period of each figure.
get_message_events: Returns the delivery timeline of one sent message: processed, delivered, opened,
    clicked, bounced.
  sent_message_id* str: Message id returned when it was sent.
create_mailing_list: Creates a mailing list with its own address; mail to it reaches every member.
  address* email: Address of the list, such as "team@lists.example.com".
  name str: Display name.
  access_level enum(readonly|members|everyone): Who may post to it.
add_list_member: Adds an address to a mailing list.
  list_address* email: Address of the list.
  member* email: Address to add.
  name str: Member's name.
remove_list_member: Removes an address from a mailing list.
  list_address* email: Address of the list.
  member* email: Address to remove.
list_list_members: Lists the members of a mailing list.
  list_address* email: Address of the list.
  subscribed bool: Only subscribed or only unsubscribed members.
delete_mailing_list: Deletes a mailing list and its membership.
  list_address* email: Address of the list.
create_contact: Adds a person to the user's contacts.
  name* str: Full name.
  emails* email[]: Email addresses.
  phone str: Phone number.
  organization str: Company.
update_contact: Changes a contact's name, email addresses, phone or company.
  contact_id* str: Identifier of the contact.
  name str: New full name.
  emails email[]: New email addresses.
  phone str: New phone number.
delete_contact: Deletes a contact.
  contact_id* str: Identifier of the contact.
search_contacts: Finds contacts whose name, email address or phone number starts with a text.
  query* str: Text to look for.
  limit int: Maximum number of contacts.
list_contact_groups: Lists contact groups, such as "Family" or "Clients", with their member counts.
  max_results int: Maximum number of groups.
create_inbound_route: Routes incoming mail for a domain or address pattern to a webhook, which receives
    each message parsed as JSON.
  pattern* str: Recipient pattern, such as "*@inbound.example.com".
  webhook_url* uri: URL that receives the parsed messages.
delete_inbound_route: Stops routing incoming mail to a webhook.
  route_id* str: Identifier of the route.
validate_address: Checks whether an email address is well formed, has a mail server and is likely deliverable,
    flagging disposable and role addresses.
  email* email: The address to check.
get_profile: Returns the mailbox's address, total message and thread counts, and storage used.
  user_id str: Mailbox to describe; defaults to the signed-in user.
export_mailbox: Exports messages to an mbox file for backup or migration, optionally only some labels.
  label_ids str[]: Only messages with these labels.
  destination* str: Where to write the mbox file.
recall_message(message_id*): Tries to withdraw a sent message from recipients' inboxes in the same organization,
    if they have not opened it.
  delete_unread_copies bool: Delete the copies instead of replacing them.
unsubscribe(message_id*): Unsubscribes from the newsletter or mailing list a message came from,
    using its List-Unsubscribe header.
create_masked_address: Creates a random alias address that forwards to the user's inbox,
    to hand out instead of the real address.
  description str: What the alias is for, such as the site it was given to.
empty_trash: Permanently deletes every message in Trash now instead of after 30 days.
  older_than_days int: Only messages trashed more than this many days ago.
"""

_ISSUES_SHARED = """
issue_key str: Key of an issue, such as "PROJ-123".
issue_keys str[]: Keys of the issues, such as ["PROJ-1", "PROJ-2"].
project_key str: Key of a project, such as "PROJ".
board_id int: Identifier of an agile board.
sprint_id int: Identifier of a sprint.
version_id str: Identifier of a project version (release).
notify_users bool: Email watchers about the change; defaults to true.
max_results int: Maximum number of results per page; defaults to 50.
start_at int: Index of the first result, for pagination.
"""

_ISSUES = """
create_issue(project_key*): Creates an issue, such as a bug, task or story, in a project.
  issue_type* str: Issue type, such as "Bug", "Task" or "Story".
  summary* str: One-line title.
  description str: Description in Markdown.
  assignee str: Account id of the assignee.
  priority enum(Highest|High|Medium|Low|Lowest): Priority.
  labels str[]: Labels to add.
  components str[]: Components of the project it belongs to.
get_issue(issue_key*): Returns an issue with its fields, status, assignee, comments count and subtasks.
  fields str[]: Only these fields.
  expand enum(renderedFields|changelog|transitions|names)[]: Extra sections to include.
update_issue(issue_key*, notify_users): Edits an issue's fields, such as its summary, description
    or custom fields. Fields not given are unchanged.
  summary str: New title.
  description str: New description.
  fields obj: Other fields by id, for example {"customfield_10010": "value"}.
delete_issue(issue_key*): Deletes an issue permanently, with its comments and attachments.
  delete_subtasks bool: Also delete its subtasks; required when it has any.
search_issues(max_results, start_at): Finds issues with a JQL query, such as
    "project = PROJ AND status = 'In Progress' ORDER BY updated DESC".
  jql* str: The JQL query.
  fields str[]: Fields to return for each issue.
transition_issue(issue_key*, notify_users): Moves an issue through its workflow to another status,
    such as from "To Do" to "In Progress".
  transition_id* str: Transition to perform, from issues_list_transitions.
  comment str: Comment to add with the transition.
list_transitions(issue_key*): Lists the workflow transitions available from the issue's current status
    for the caller.
resolve_issue(issue_key*, notify_users): Marks an issue as done with a resolution, such as Fixed or Won't Do.
  resolution* enum(fixed|wont_do|duplicate|cannot_reproduce|done): The resolution.
  comment str: Comment explaining it.
reopen_issue(issue_key*, notify_users): Reopens a resolved issue, clearing its resolution.
  comment str: Why it is reopened.
assign_issue(issue_key*): Assigns an issue to a user, or clears its assignee.
  account_id str: Account id of the new assignee; null unassigns; "-1" uses the project default.
clone_issue(issue_key*): Creates a copy of an issue with the same fields, linked to the original with "clones".
  summary str: Title of the copy; defaults to "CLONE - " plus the original.
  include_subtasks bool: Copy subtasks too.
  include_attachments bool: Copy attachments too.
move_issue(issue_key*, project_key*): Moves an issue to another project, giving it a new key there;
    the old key redirects to it.
  issue_type str: Issue type to use in the target project.
create_subtask(issue_key*): Creates a subtask under an existing issue.
  summary* str: One-line title.
  assignee str: Account id of the assignee.
convert_to_subtask(issue_key*): Turns a standalone issue into a subtask of another issue.
  parent_key* str: Key of the new parent.
link_issues(notify_users): Creates a link between two issues, such as "blocks", "relates to" or "duplicates".
  inward_issue* str: Key of the inward issue.
  outward_issue* str: Key of the outward issue.
  link_type* enum(Blocks|Relates|Duplicate|Cloners|Causes): Kind of link.
delete_issue_link: Removes a link between two issues.
  link_id* str: Identifier of the link.
list_issue_links(issue_key*): Lists the issues linked to an issue, with the kind and direction of each link.
bulk_edit(issue_keys*, notify_users): Changes the same fields on many issues at once, as one background task.
  fields* obj: Fields and new values to set on every issue.
set_priority(issue_key*): Changes the priority of an issue.
  priority* enum(Highest|High|Medium|Low|Lowest): New priority.
set_due_date(issue_key*): Sets or clears the date an issue is due.
  due_date date: Due date; null clears it.
add_labels(issue_key*): Adds labels to an issue, keeping the ones it already has.
  labels* str[]: Labels to add.
remove_labels(issue_key*): Removes labels from an issue.
  labels* str[]: Labels to remove.
list_labels(max_results, start_at): Lists every label in use on the site.
  prefix str: Only labels starting with this text.
set_story_points(issue_key*): Sets an issue's story point estimate, used for sprint planning and velocity.
  points* num: Estimate in story points.
set_time_estimate(issue_key*): Sets an issue's original and remaining time estimates.
  original_estimate str: Original estimate, such as "3d 4h".
  remaining_estimate str: Remaining estimate, such as "1d".
flag_issue(issue_key*): Flags an issue as impeded, highlighting it on boards, or removes the flag.
  flagged* bool: Whether the issue is flagged.
  comment str: Why it is blocked.
archive_issue(issue_keys*): Archives issues: they disappear from searches and boards but are kept and can be
    restored.
restore_archived_issue(issue_keys*): Brings archived issues back into searches and boards.
set_security_level(issue_key*): Restricts who can see an issue by setting its security level.
  security_level* str: Name or id of the level, such as "Internal only".
add_comment(issue_key*): Adds a comment to an issue, optionally visible only to a role or group.
  body* str: The comment in Markdown; @mentions notify people.
  visibility_role str: Only users in this project role can see it.
edit_comment(issue_key*): Changes the text of an existing comment.
  comment_id* str: Identifier of the comment.
  body* str: New text.
delete_comment(issue_key*): Deletes a comment from an issue.
  comment_id* str: Identifier of the comment.
list_comments(issue_key*, max_results, start_at): Lists the comments on an issue, oldest first.
  order_by enum(created|-created): Sort order.
add_watcher(issue_key*): Adds a user to the people notified of every change to an issue.
  account_id* str: Account id of the user.
remove_watcher(issue_key*): Stops a user from receiving notifications about an issue.
  account_id* str: Account id of the user.
list_watchers(issue_key*): Lists the users watching an issue.
  include_count bool: Include the total number of watchers.
vote_issue(issue_key*): Adds the caller's vote to an issue, to show demand for it, or withdraws it.
  vote* bool: Add the vote, or withdraw it.
add_attachment(issue_key*): Uploads a file and attaches it to an issue.
  filename* str: File name.
  content_base64* str: File contents, base64-encoded.
delete_attachment: Removes a file attached to an issue.
  attachment_id* str: Identifier of the attachment.
log_work(issue_key*): Records time spent on an issue and reduces its remaining estimate.
  time_spent* str: Time spent, such as "2h 30m".
  started datetime: When the work started; defaults to now.
  comment str: What was done.
  adjust_estimate enum(auto|leave|new|manual): How to change the remaining estimate.
list_worklogs(issue_key*): Lists the time logged on an issue, with who logged it and when.
  started_after datetime: Only work started after this time.
delete_worklog(issue_key*): Deletes a time entry from an issue.
  worklog_id* str: Identifier of the worklog.
  increase_estimate bool: Add the time back to the remaining estimate.
get_changelog(issue_key*, max_results, start_at): Returns an issue's history of changes:
    every field edit and status change with who made it and when.
add_remote_link(issue_key*): Links an issue to a page outside the tracker, such as a pull request,
    a document or a support ticket.
  url* uri: Address of the page.
  title* str: Text shown for the link.
get_development_info(issue_key*): Returns the branches, commits, pull requests and builds that mention the issue
    in connected code hosts.
  data_type enum(branch|commit|pullrequest|build): Only this kind of item.
send_notification(issue_key*): Emails a message about an issue to chosen users, groups or the issue's watchers.
  subject* str: Subject of the email.
  text_body* str: Body of the email.
  to* obj: Recipients: reporter, assignee, watchers, users, groups.
create_project: Creates a project with a key, a lead and a template that decides its board and workflow.
  key* str: Project key, such as "PROJ".
  name* str: Project name.
  lead_account_id* str: Account id of the project lead.
  template enum(scrum|kanban|bug_tracking|service_desk): Project template.
get_project(project_key*): Returns a project with its lead, issue types, components and versions.
update_project(project_key*): Changes a project's name, key, lead, description or category.
  name str: New name.
  lead_account_id str: Account id of the new lead.
  description str: New description.
archive_project(project_key*): Archives a project: it becomes read-only and hidden from browsing and search.
delete_project(project_key*): Moves a project to the trash, where it is deleted permanently after 60 days.
  enable_undo bool: Keep it restorable in the trash; defaults to true.
list_projects(max_results, start_at): Lists the projects the caller can browse.
  query str: Only projects whose key or name contains this text.
  category_id str: Only projects in this category.
list_issue_types(project_key): Lists issue types, such as Bug, Story and Epic, with their hierarchy level.
list_fields: Lists system and custom fields with their ids, names and types, for use in JQL and edits.
  custom_only bool: Only custom fields.
create_custom_field: Creates a custom field that issues can carry, such as a "Customer" dropdown.
  name* str: Field name.
  type* enum(text|number|date|select|multiselect|user|labels): Kind of field.
  description str: Help text.
list_priorities: Lists the issue priorities defined on the site, in order.
  max_results int: Maximum number of priorities.
list_statuses(project_key): Lists the statuses issues can have, such as "In Review", with their categories.
list_workflows(max_results, start_at): Lists the workflows with their statuses and transitions.
  project_key str: Only workflows used by this project.
create_component(project_key*): Creates a component, a part of the project such as "API" or "Billing",
    optionally with a default assignee.
  name* str: Component name.
  lead_account_id str: Account id of its lead.
  assignee_type enum(PROJECT_DEFAULT|COMPONENT_LEAD|PROJECT_LEAD|UNASSIGNED): Who new issues in it go to.
delete_component: Deletes a component, optionally moving its issues to another one.
  component_id* str: Identifier of the component.
  move_issues_to str: Component to move its issues to.
list_components(project_key*): Lists a project's components with their leads and issue counts.
create_version(project_key*): Creates a version, a release the project works towards, with optional dates.
  name* str: Version name, such as "2.4.0".
  start_date date: Start date.
  release_date date: Planned release date.
release_version(version_id*): Marks a version released, optionally moving its unresolved issues to another version.
  release_date date: Release date; defaults to today.
  move_unfixed_issues_to str: Version that gets the unresolved issues.
archive_version(version_id*): Archives a version so it no longer shows in version pickers.
list_versions(project_key*): Lists a project's versions with their release status and dates.
  released bool: Only released or only unreleased versions.
merge_versions(version_id*): Merges one version into another: its issues move to the other and it is deleted.
  target_version_id* str: Version that receives the issues.
set_fix_version(issue_keys*, version_id*): Sets the version in which issues are fixed, for release notes.
create_sprint(board_id*): Creates a future sprint on a scrum board.
  name* str: Sprint name.
  goal str: Sprint goal.
  start_date datetime: Planned start.
  end_date datetime: Planned end.
start_sprint(sprint_id*): Starts a future sprint, making it the board's active sprint.
  end_date* datetime: When the sprint ends.
  goal str: Sprint goal.
complete_sprint(sprint_id*): Closes the active sprint; its unfinished issues move to the backlog or the next sprint.
  move_open_issues_to enum(backlog|next_sprint): Where unfinished issues go.
move_to_sprint(issue_keys*, sprint_id*): Moves issues into a sprint, taking them out of any other sprint.
list_sprints(board_id*, max_results, start_at): Lists the sprints of a board.
  state enum(future|active|closed): Only sprints in this state.
get_sprint_report(sprint_id*): Returns a sprint's report: issues completed, not completed,
    added after it started and removed.
create_board(project_key*): Creates a scrum or kanban board showing the issues of a saved filter.
  name* str: Board name.
  type* enum(scrum|kanban): Kind of board.
  filter_id* str: Saved filter that selects the board's issues.
list_boards(project_key, max_results, start_at): Lists agile boards.
  type enum(scrum|kanban): Only boards of this kind.
get_backlog(board_id*, max_results, start_at): Lists the issues in a board's backlog, in rank order.
rank_issues(issue_keys*): Reorders issues in the backlog by placing them before or after another issue.
  rank_before str: Place them before this issue.
  rank_after str: Place them after this issue.
move_to_backlog(issue_keys*): Takes issues out of their sprints and puts them back in the backlog.
add_to_epic(issue_keys*): Makes issues children of an epic.
  epic_key* str: Key of the epic.
list_epic_issues(max_results, start_at): Lists the issues that belong to an epic.
  epic_key* str: Key of the epic.
save_filter: Saves a JQL query as a named filter that can be reused, shared and subscribed to.
  name* str: Filter name.
  jql* str: The JQL query.
  favourite bool: Star it for the caller.
list_filters(max_results, start_at): Lists saved filters, the caller's own or favourites.
  favourites_only bool: Only starred filters.
share_filter: Shares a saved filter with a group, project or role, or lets them edit it.
  filter_id* str: Identifier of the filter.
  share_type* enum(group|project|projectRole|global): Who to share with.
  share_with str: Name of the group, project or role.
  can_edit bool: Allow them to edit it.
create_dashboard: Creates a dashboard that gadgets can be added to.
  name* str: Dashboard name.
  description str: Description.
  share_permissions obj[]: Who can view it.
add_dashboard_gadget: Adds a gadget, such as a filter results list or a pie chart, to a dashboard.
  dashboard_id* str: Identifier of the dashboard.
  module_key* str: Kind of gadget.
  filter_id str: Saved filter the gadget shows.
create_automation_rule(project_key): Creates a rule that runs actions when a trigger fires,
    for example assigning new bugs to a triage lead.
  name* str: Rule name.
  trigger* obj: When it runs, such as issue created or field changed.
  actions* obj[]: What it does.
  conditions obj[]: Conditions the issue must meet.
list_automation_rules(project_key): Lists automation rules with their triggers and whether they are enabled.
  state enum(enabled|disabled): Only rules in this state.
disable_automation_rule: Turns an automation rule off without deleting it.
  rule_id* str: Identifier of the rule.
add_project_member(project_key*): Gives a user or group a role in a project, such as Developer or Administrator.
  role* str: Project role name.
  account_id str: Account id of the user.
  group str: Group name.
remove_project_member(project_key*): Takes a user or group out of a project role.
  role* str: Project role name.
  account_id str: Account id of the user.
  group str: Group name.
list_project_roles(project_key*): Lists a project's roles and the users and groups in each.
find_assignable_users(project_key, issue_key, max_results): Finds users who can be assigned issues,
    matching a name or email.
  query str: Text to match against name or email.
create_webhook: Registers a URL that is called when issues matching a JQL filter are created, updated or deleted.
  url* uri: URL to call.
  events* enum(issue_created|issue_updated|issue_deleted|comment_created|sprint_started)[]: Events to send.
  jql_filter str: Only issues matching this JQL.
delete_webhook: Deletes a webhook.
  webhook_id* str: Identifier of the webhook.
velocity_report(board_id*): Returns a board's velocity: committed and completed story points
    for each recent sprint.
  sprints int: How many recent sprints to include; defaults to 7.
created_vs_resolved_report(project_key*): Charts how many issues were created and how many resolved per day
    over a period, showing whether the backlog grows.
  days_previously* int: Length of the period in days.
  period enum(daily|weekly|monthly): Grouping of the figures.
time_in_status_report(issue_keys*): Reports how long issues spent in each status of their workflow.
  statuses str[]: Only these statuses.
get_sla(issue_key*): Returns a service-desk request's SLA clocks, such as time to first response,
    with elapsed and remaining time.
export_csv: Exports the issues matching a JQL query to a CSV file.
  jql* str: The JQL query.
  fields str[]: Columns to export; all fields when omitted.
import_csv(project_key*): Creates issues in bulk from a CSV file, mapping its columns to fields.
  csv_content* str: The CSV data.
  field_mapping* obj: Column name to field id.
"""

_STORAGE_SHARED = """
bucket str: Name of the bucket.
key str: Key (full name) of the object, such as "reports/2024/q1.csv".
version_id str: Version of the object; the current version when omitted.
prefix str: Only keys that begin with this text, such as "logs/2024/".
expected_bucket_owner str: Account id the bucket must belong to; the request fails otherwise.
upload_id str: Identifier of a multipart upload.
storage_class enum(STANDARD|STANDARD_IA|ONEZONE_IA|INTELLIGENT_TIERING|GLACIER_IR|GLACIER|DEEP_ARCHIVE): Storage class.
"""

_STORAGE = """
create_bucket(bucket*): Creates a bucket in a region. Bucket names are globally unique.
  region str: Region to create it in, such as "eu-west-1".
  object_lock_enabled bool: Enable object lock, which can only be turned on at creation.
delete_bucket(bucket*, expected_bucket_owner): Deletes a bucket. It must be empty, including all object versions.
list_buckets: Lists the buckets the account owns with their creation dates.
  prefix str: Only buckets whose name starts with this text.
  region str: Only buckets in this region.
get_bucket_location(bucket*): Returns the region a bucket lives in.
bucket_exists(bucket*, expected_bucket_owner): Checks whether a bucket exists and the caller may access it,
    without listing anything.
put_object(bucket*, key*, storage_class): Uploads an object of up to 5 GB in one request,
    replacing any object with the same key.
  body_base64* str: Contents, base64-encoded.
  content_type str: Media type, such as "image/png".
  metadata obj: User metadata stored as x-amz-meta-* headers.
  if_none_match bool: Fail if an object with the key already exists.
get_object(bucket*, key*, version_id): Downloads an object's contents, or a byte range of them.
  range str: Byte range, such as "bytes=0-1023".
  if_modified_since datetime: Return it only if changed since this time.
head_object(bucket*, key*, version_id): Returns an object's metadata, such as size, ETag, content type
    and storage class, without its contents.
delete_object(bucket*, key*, version_id): Deletes an object. In a versioned bucket it adds a delete marker
    unless a version is given.
  bypass_governance_retention bool: Delete even under governance-mode retention.
delete_objects(bucket*): Deletes up to 1,000 objects in one request and reports the result for each.
  keys* str[]: Keys to delete.
  quiet bool: Report only the failures.
copy_object(key*, storage_class): Copies an object, within or between buckets, server-side without downloading it.
  source_bucket* str: Bucket of the source object.
  source_key* str: Key of the source object.
  destination_bucket* str: Bucket to copy into.
  metadata_directive enum(COPY|REPLACE): Keep the source's metadata or replace it.
list_objects(bucket*, prefix): Lists the objects in a bucket, 1,000 per page, in key order.
  delimiter str: Group keys by this character, usually "/".
  start_after str: Start listing after this key.
  continuation_token str: Token for the next page.
list_object_versions(bucket*, prefix): Lists every version of the objects in a bucket,
    including delete markers.
  key_marker str: Key to start after.
restore_archived_object(bucket*, key*, version_id): Temporarily makes a copy of an object stored
    in Glacier or Deep Archive readable again, for a number of days.
  days* int: How long the readable copy lasts.
  tier enum(Expedited|Standard|Bulk): Retrieval speed; faster costs more.
rename_object(bucket*, key*): Gives an object a new key in the same bucket, as a copy followed by a delete.
  new_key* str: The new key.
select_object_content(bucket*, key*): Runs a SQL expression over a CSV, JSON or Parquet object server-side
    and returns only the matching records.
  expression* str: SQL such as "SELECT s.name FROM S3Object s WHERE s.age > 30".
  input_format* enum(CSV|JSON|Parquet): Format of the object.
update_object_metadata(bucket*, key*): Replaces an object's user metadata and headers such as
    Content-Type and Cache-Control, by copying it onto itself.
  metadata obj: New user metadata.
  content_type str: New media type.
  cache_control str: New Cache-Control header.
sync_directory(bucket*, prefix): Uploads a local directory to a bucket, sending only new or changed files.
  local_path* str: Local directory to upload.
  delete bool: Delete objects under the prefix that are not in the directory.
  exclude str[]: Glob patterns of files to skip.
download_prefix(bucket*, prefix*): Downloads every object under a prefix into a local directory,
    keeping the key structure as folders.
  local_path* str: Local directory to write to.
create_multipart_upload(bucket*, key*, storage_class): Starts a multipart upload for a large object and returns
    its upload id. Parts can then be uploaded in parallel.
  content_type str: Media type of the final object.
upload_part(bucket*, key*, upload_id*): Uploads one part, of 5 MB to 5 GB, of a multipart upload
    and returns its ETag.
  part_number* int: Number of the part, from 1 to 10,000.
  body_base64* str: Contents of the part, base64-encoded.
complete_multipart_upload(bucket*, key*, upload_id*): Assembles the uploaded parts into the final object.
  parts* obj[]: Part numbers with their ETags, in order.
abort_multipart_upload(bucket*, key*, upload_id*): Cancels a multipart upload and frees the storage
    of its parts.
list_multipart_uploads(bucket*, prefix): Lists the multipart uploads that were started but neither completed
    nor aborted.
list_parts(bucket*, key*, upload_id*): Lists the parts uploaded so far for a multipart upload.
presign_download(bucket*, key*, version_id): Creates a time-limited URL that lets anyone holding it
    download an object without credentials.
  expires_in_seconds int: Lifetime of the URL, at most 7 days; defaults to 1 hour.
presign_upload(bucket*, key*): Creates a time-limited URL that lets anyone holding it upload an object
    with a PUT request.
  expires_in_seconds int: Lifetime of the URL.
  content_type str: Media type the upload must have.
generate_post_policy(bucket*, key*): Creates a signed policy and form fields for uploading from a browser
    with an HTML form POST, with limits such as maximum file size.
  max_size int: Largest upload allowed, in bytes.
  expires_in_seconds int: Lifetime of the policy.
set_versioning(bucket*): Turns object versioning on or suspends it, so overwritten and deleted objects
    are kept as older versions.
  status* enum(Enabled|Suspended): Versioning state.
  mfa_delete bool: Require MFA to delete versions.
get_versioning(bucket*): Returns whether versioning is enabled or suspended on a bucket.
restore_object_version(bucket*, key*, version_id*): Makes an older version of an object the current one
    again by copying it over the latest.
undelete_object(bucket*, key*): Brings back a deleted object in a versioned bucket by removing its delete marker.
put_lifecycle_rules(bucket*): Sets rules that move objects to cheaper storage classes or expire them
    after a number of days.
  rules* obj[]: Rules with a filter, transitions and expiration.
get_lifecycle_rules(bucket*): Returns a bucket's lifecycle rules.
delete_lifecycle_rules(bucket*): Removes all lifecycle rules from a bucket.
put_cors(bucket*): Sets which web origins may access a bucket from browsers, with which methods and headers.
  rules* obj[]: CORS rules with allowed origins, methods and headers.
get_cors(bucket*): Returns a bucket's cross-origin resource sharing rules.
delete_cors(bucket*): Removes a bucket's cross-origin rules, so browsers on other origins are refused.
put_bucket_policy(bucket*, expected_bucket_owner): Attaches a JSON access policy to a bucket
    that grants or denies actions to principals.
  policy* str: The policy document.
get_bucket_policy(bucket*): Returns the access policy attached to a bucket.
delete_bucket_policy(bucket*): Removes the access policy from a bucket.
get_policy_status(bucket*): Tells whether a bucket's policy makes it public.
block_public_access(bucket*): Turns on the settings that block public access to a bucket through ACLs
    and policies, whatever they say.
  block_public_acls bool: Reject requests that set public ACLs.
  block_public_policy bool: Reject policies that grant public access.
  restrict_public_buckets bool: Ignore public policies that exist.
get_public_access_block(bucket*): Returns the public access block settings of a bucket.
delete_public_access_block(bucket*): Removes the public access block of a bucket, allowing public
    ACLs and policies again.
put_object_acl(bucket*, key*, version_id): Sets the access control list of an object, for example
    to make it publicly readable.
  acl* enum(private|public-read|authenticated-read|bucket-owner-read|bucket-owner-full-control): Canned ACL.
get_object_acl(bucket*, key*, version_id): Returns the access control list of an object.
put_bucket_acl(bucket*): Sets the access control list of a bucket.
  acl* enum(private|public-read|public-read-write|authenticated-read|log-delivery-write): Canned ACL.
get_bucket_acl(bucket*): Returns the access control list of a bucket.
set_object_ownership(bucket*): Sets who owns objects other accounts upload to a bucket, or disables ACLs entirely.
  ownership* enum(BucketOwnerEnforced|BucketOwnerPreferred|ObjectWriter): Ownership setting.
set_default_encryption(bucket*): Sets the encryption applied to every new object written to a bucket.
  algorithm* enum(AES256|aws:kms|aws:kms:dsse): Server-side encryption algorithm.
  kms_key_id str: KMS key to use.
  bucket_key_enabled bool: Use a bucket key to reduce KMS calls.
get_default_encryption(bucket*): Returns a bucket's default server-side encryption settings.
delete_default_encryption(bucket*): Resets a bucket's default encryption to S3-managed keys.
put_replication(bucket*): Sets rules that copy new objects automatically to a bucket in another region or account.
  role_arn* str: IAM role replication runs as.
  rules* obj[]: Rules with a filter, destination bucket and storage class.
get_replication(bucket*): Returns a bucket's replication rules.
delete_replication(bucket*): Removes a bucket's replication rules.
tag_object(bucket*, key*, version_id): Replaces the tags of an object, such as project=apollo.
  tags* obj: Up to 10 key-value tags.
get_object_tags(bucket*, key*, version_id): Returns the tags of an object.
delete_object_tags(bucket*, key*, version_id): Removes every tag from an object.
tag_bucket(bucket*): Replaces the tags of a bucket, used for cost allocation.
  tags* obj: Key-value tags.
get_bucket_tags(bucket*): Returns the tags of a bucket.
delete_bucket_tags(bucket*): Removes every tag from a bucket.
enable_access_logging(bucket*): Records every request made to a bucket as log files in another bucket.
  target_bucket* str: Bucket that receives the logs.
  target_prefix str: Prefix for the log files.
get_access_logging(bucket*): Returns where a bucket's server access logs are delivered, if anywhere.
configure_website(bucket*): Serves a bucket as a static website with an index page, an error page
    and redirect rules.
  index_document* str: Page served for directory requests, such as "index.html".
  error_document str: Page served on errors, such as "404.html".
  routing_rules obj[]: Redirect rules.
get_website_config(bucket*): Returns a bucket's static website settings.
delete_website_config(bucket*): Stops serving a bucket as a static website.
put_event_notifications(bucket*): Sends a message to a queue, topic or function when objects are created
    or removed in a bucket.
  configurations* obj[]: Events, key filters and destinations.
get_event_notifications(bucket*): Returns a bucket's event notification settings.
put_object_lock_config(bucket*): Sets a default retention period that protects new objects in a bucket
    from deletion and overwrite.
  mode* enum(GOVERNANCE|COMPLIANCE): Retention mode; compliance cannot be shortened by anyone.
  days int: Retention period in days.
  years int: Retention period in years.
get_object_lock_config(bucket*): Returns a bucket's object lock setting and default retention.
put_object_retention(bucket*, key*, version_id): Protects one object version from deletion until a date.
  mode* enum(GOVERNANCE|COMPLIANCE): Retention mode.
  retain_until* datetime: Date until which it cannot be deleted.
get_object_retention(bucket*, key*, version_id): Returns the retention mode and date of an object version.
put_legal_hold(bucket*, key*, version_id): Places or lifts a legal hold, which protects an object version
    from deletion indefinitely, regardless of retention.
  status* enum(ON|OFF): Whether the hold is on.
get_legal_hold(bucket*, key*, version_id): Returns whether a legal hold is on an object version.
put_inventory_config(bucket*, prefix): Schedules a daily or weekly CSV or Parquet report listing a bucket's objects
    and their metadata.
  id* str: Name of the inventory configuration.
  destination_bucket* str: Bucket that receives the reports.
  frequency* enum(Daily|Weekly): How often to produce it.
  fields str[]: Optional fields, such as Size, StorageClass and EncryptionStatus.
list_inventory_configs(bucket*): Lists a bucket's inventory report configurations.
delete_inventory_config(bucket*): Removes an inventory report configuration.
  id* str: Name of the inventory configuration.
put_intelligent_tiering(bucket*, prefix): Sets when rarely accessed objects in the Intelligent-Tiering class
    move to the archive tiers.
  id* str: Name of the configuration.
  archive_after_days int: Days without access before the Archive Access tier.
  deep_archive_after_days int: Days without access before the Deep Archive Access tier.
get_intelligent_tiering(bucket*): Returns a bucket's Intelligent-Tiering archive settings.
  id* str: Name of the configuration.
get_bucket_metrics(bucket*, storage_class): Returns a bucket's daily size in bytes and number of objects over
    a period.
  start_date* date: First day.
  end_date date: Last day.
create_access_point(bucket*): Creates a named network endpoint for a bucket with its own access policy,
    optionally reachable only from a VPC.
  name* str: Name of the access point.
  vpc_id str: Only allow access from this VPC.
delete_access_point: Deletes an access point; the bucket is unaffected.
  name* str: Name of the access point.
list_access_points(bucket): Lists access points, optionally only those of one bucket.
  max_results int: Maximum number of access points.
put_access_point_policy: Attaches an access policy to an access point.
  name* str: Name of the access point.
  policy* str: The policy document.
get_access_point_policy: Returns the access policy of an access point.
  name* str: Name of the access point.
create_multi_region_access_point: Creates one global endpoint that routes requests to the nearest
    of several buckets in different regions.
  name* str: Name of the access point.
  buckets* str[]: Buckets it routes to, one per region.
enable_transfer_acceleration(bucket*): Turns on accelerated transfers through edge locations
    for faster uploads from far away.
  enabled* bool: Whether acceleration is on.
set_requester_pays(bucket*): Makes the account that downloads from a bucket pay the request and transfer costs.
  enabled* bool: Whether requesters pay.
change_storage_class(bucket*, key*, storage_class*): Moves an object to another storage class,
    such as an infrequent-access or archive class, to reduce cost.
create_batch_job: Starts a batch operation over millions of objects listed in a manifest,
    such as copying, tagging or restoring them.
  operation* enum(copy|put_tagging|restore|delete|invoke_lambda|replicate): What to do to each object.
  manifest* obj: Location and format of the list of objects.
  report obj: Where to write the completion report.
  priority int: Higher runs first.
describe_batch_job: Returns a batch operation's status and progress counts.
  job_id* str: Identifier of the job.
list_batch_jobs: Lists batch operations.
  status enum(Active|Complete|Failed|Cancelled|Suspended): Only jobs with this status.
cancel_batch_job: Cancels a running batch operation.
  job_id* str: Identifier of the job.
get_object_checksum(bucket*, key*, version_id): Returns an object's stored checksum,
    such as its CRC32C or SHA-256, and its parts.
  algorithm enum(CRC32|CRC32C|SHA1|SHA256): Checksum to return.
list_folders(bucket*, prefix): Lists the "folders" directly under a prefix: the key prefixes up to the next "/".
create_folder(bucket*, key*): Creates an empty placeholder object ending in "/" that consoles show as a folder.
empty_bucket(bucket*): Deletes every object and every version in a bucket, leaving it empty but in place.
  dry_run bool: Count what would be deleted.
put_request_metrics_config(bucket*, prefix): Turns on per-minute request metrics, such as counts
    and latency, for a bucket or a prefix.
  id* str: Name of the metrics configuration.
get_object_ownership(bucket*): Returns a bucket's object ownership setting.
"""

_DATABASE_SHARED = """
instance str: Name of the database instance (server).
database str: Name of the database; defaults to the connection's database.
schema str: Schema name; defaults to "public".
table str: Table name, optionally qualified as "schema.table".
column str: Column name.
pid int: Process id of a server backend, as shown by database_list_sessions.
timeout_ms int: Abort the statement after this many milliseconds.
if_exists bool: Do nothing instead of failing when the object does not exist.
"""

_DATABASE = """
run_query(database, timeout_ms): Runs a read-only SQL query in a read-only transaction and returns
    the rows as JSON objects.
  sql* str: The SELECT statement.
  params str[]: Values for $1, $2 and so on placeholders.
  max_rows int: Stop after this many rows; defaults to 1,000.
execute_statement(database, timeout_ms): Runs a data-changing SQL statement, such as INSERT, UPDATE, DELETE
    or DDL, and returns the number of rows affected.
  sql* str: The statement.
  params str[]: Values for $1, $2 and so on placeholders.
  dry_run bool: Run it in a transaction that is rolled back.
explain_query(database): Shows the execution plan the planner chooses for a query, with estimated costs.
  sql* str: The statement to explain.
  analyze bool: Actually run it and report real row counts and timings.
  buffers bool: Report buffer usage; needs analyze.
  format enum(text|json|yaml): Output format.
cancel_query(pid*): Cancels the statement a backend is running; the session stays connected.
terminate_session(pid*): Ends a backend's connection, rolling back its open transaction.
list_sessions(database): Lists the connections to the server with their user, client address, state,
    current query and how long it has been running.
  state enum(active|idle|idle_in_transaction|all): Only sessions in this state.
  min_duration_seconds int: Only sessions whose current state has lasted at least this long.
list_locks(database): Lists the locks held and awaited, with the relation, lock mode and process holding each.
  waiting_only bool: Only locks that are waited for.
find_blocking_queries(database): Shows which sessions are blocked and the sessions blocking them,
    with both queries.
list_slow_queries(database): Lists the normalized statements that used the most total time,
    with calls, mean time and rows, from pg_stat_statements.
  limit int: How many statements; defaults to 20.
  order_by enum(total_time|mean_time|calls|rows): Sort order.
reset_query_stats(database): Clears the statistics collected by pg_stat_statements, to measure afresh.
list_databases(instance): Lists the databases on the server with their owner, encoding and size.
create_database(instance): Creates a new database.
  name* str: Name of the database.
  owner str: Role that owns it.
  template str: Database to copy; defaults to template1.
  encoding str: Character encoding, such as "UTF8".
drop_database(instance, if_exists): Deletes a database and everything in it.
  name* str: Name of the database.
  force bool: Terminate connections to it first.
rename_database(instance): Renames a database. Nobody may be connected to it.
  name* str: Current name.
  new_name* str: New name.
list_schemas(database): Lists the schemas of a database with their owners.
  include_system bool: Include pg_catalog, information_schema and the like.
create_schema(database): Creates a schema, a namespace for tables and other objects.
  name* str: Schema name.
  owner str: Role that owns it.
drop_schema(database, if_exists): Deletes a schema.
  name* str: Schema name.
  cascade bool: Also drop every object in it.
list_tables(database, schema): Lists the tables of a schema with their estimated row counts.
  name_pattern str: LIKE pattern the table name must match.
describe_table(database, table*): Returns a table's columns with types, defaults and nullability,
    plus its indexes, constraints and triggers.
create_table(database, schema): Creates a table.
  name* str: Table name.
  columns* obj[]: Columns, each {name, type, nullable, default}.
  primary_key str[]: Columns of the primary key.
  if_not_exists bool: Do nothing when the table exists.
drop_table(database, table*, if_exists): Deletes a table with its data.
  cascade bool: Also drop views and foreign keys that depend on it.
rename_table(database, table*): Renames a table.
  new_name* str: New name.
truncate_table(database, table*): Removes every row from a table at once, much faster than DELETE.
  restart_identity bool: Reset the table's sequences.
  cascade bool: Also truncate tables with foreign keys to it.
add_column(database, table*): Adds a column to a table.
  name* str: Column name.
  type* str: Data type, such as "text" or "numeric(10,2)".
  default str: Default expression.
  not_null bool: Forbid nulls.
drop_column(database, table*, column*, if_exists): Removes a column and its data from a table.
  cascade bool: Also drop objects that depend on it.
rename_column(database, table*, column*): Renames a column.
  new_name* str: New name.
alter_column_type(database, table*, column*): Changes a column's data type, rewriting the table if needed.
  new_type* str: New data type.
  using str: Expression converting the old values, such as "amount::numeric".
set_column_default(database, table*, column*): Sets or removes the default value of a column.
  default str: Default expression; null removes the default.
set_not_null(database, table*, column*): Adds or removes a NOT NULL constraint on a column.
  not_null* bool: Whether nulls are forbidden.
add_constraint(database, table*): Adds a primary key, unique, check or foreign key constraint to a table.
  name* str: Constraint name.
  definition* str: For example "FOREIGN KEY (user_id) REFERENCES users (id)" or "CHECK (price > 0)".
  not_valid bool: Skip checking existing rows now.
drop_constraint(database, table*, if_exists): Removes a constraint from a table.
  name* str: Constraint name.
list_constraints(database, table*): Lists a table's constraints with their definitions.
  type enum(primary_key|unique|check|foreign_key|exclusion): Only constraints of this type.
create_index(database, table*): Creates an index on columns or expressions of a table.
  name* str: Index name.
  columns* str[]: Columns or expressions.
  unique bool: Enforce uniqueness.
  method enum(btree|hash|gin|gist|brin): Index method; defaults to btree.
  concurrently bool: Build without blocking writes.
  where str: Predicate, for a partial index.
drop_index(database, if_exists): Deletes an index.
  name* str: Index name.
  concurrently bool: Drop without blocking writes.
list_indexes(database, table): Lists indexes with their definitions, sizes and how often each is scanned.
reindex(database, table): Rebuilds an index or all indexes of a table, for example after bloat or corruption.
  index str: One index to rebuild.
  concurrently bool: Rebuild without blocking writes.
list_unused_indexes(database, schema): Lists indexes that have never or rarely been scanned since statistics
    were reset, with the space they take.
  max_scans int: Count indexes with at most this many scans as unused.
suggest_indexes(database): Suggests indexes that would speed up the heaviest queries, with the estimated gain.
  min_improvement_percent int: Only suggest indexes that cut the cost by this much.
vacuum(database, table): Reclaims space held by dead rows and updates visibility information.
  full bool: Rewrite the table to return space to the operating system; locks it.
  analyze bool: Update planner statistics as well.
  verbose bool: Report details.
analyze_table(database, table): Collects statistics about the distribution of a table's data for the planner.
  columns str[]: Only these columns.
estimate_bloat(database, schema): Estimates how much space in tables and indexes is wasted by dead rows
    and could be reclaimed.
  min_bytes int: Only objects with at least this much waste.
get_table_size(database, table*): Returns the disk space of a table: data, indexes, TOAST and total.
get_database_size(database): Returns the total disk space a database takes.
list_largest_tables(database): Lists the tables taking the most disk space, with their row estimates.
  limit int: How many tables; defaults to 10.
create_view(database, schema): Creates or replaces a view, a stored query usable as a table.
  name* str: View name.
  query* str: The SELECT defining it.
  or_replace bool: Replace it if it exists.
drop_view(database, if_exists): Deletes a view.
  name* str: View name.
  cascade bool: Also drop objects depending on it.
create_materialized_view(database, schema): Creates a view whose result is stored on disk
    and must be refreshed to change.
  name* str: Name.
  query* str: The SELECT defining it.
  with_data bool: Fill it now; defaults to true.
refresh_materialized_view(database): Recomputes a materialized view's stored result.
  name* str: Name of the view.
  concurrently bool: Refresh without blocking reads; needs a unique index.
list_views(database, schema): Lists views and materialized views with their definitions.
  materialized_only bool: Only materialized views.
list_functions(database, schema): Lists functions and procedures with their arguments, return types
    and languages.
  name_pattern str: LIKE pattern the name must match.
list_triggers(database, table): Lists triggers with their timing, events and the function each calls.
set_trigger_enabled(database, table*): Enables or disables a trigger on a table, or all of its triggers.
  trigger str: Trigger name; all triggers when omitted.
  enabled* bool: Whether it fires.
list_extensions(database): Lists installed extensions and their versions, and those available to install.
  available bool: List the ones available rather than installed.
install_extension(database, schema): Installs an extension, such as pg_trgm or postgis, into a database.
  name* str: Extension name.
  version str: Version; defaults to the newest.
create_user(instance): Creates a role that can log in, with a password.
  name* str: User name.
  password* str: Password.
  valid_until datetime: When the password expires.
  connection_limit int: Maximum concurrent connections.
drop_user(instance, if_exists): Deletes a login role. It must own no objects.
  name* str: User name.
  reassign_owned_to str: Give its objects to this role first.
change_password(instance): Sets a new password for a user.
  name* str: User name.
  password* str: New password.
list_users(instance): Lists roles with their attributes, such as login, superuser and create database,
    and their group memberships.
  login_only bool: Only roles that can log in.
grant_privileges(database): Grants privileges such as SELECT or INSERT on tables, schemas or sequences to a role.
  privileges* enum(SELECT|INSERT|UPDATE|DELETE|TRUNCATE|REFERENCES|TRIGGER|USAGE|CREATE|ALL)[]: Privileges.
  on* str: Object, such as "TABLE orders" or "ALL TABLES IN SCHEMA public".
  to* str: Role that receives them.
  with_grant_option bool: Let the role grant them to others.
revoke_privileges(database): Takes privileges away from a role.
  privileges* enum(SELECT|INSERT|UPDATE|DELETE|TRUNCATE|REFERENCES|TRIGGER|USAGE|CREATE|ALL)[]: Privileges.
  on* str: Object, such as "TABLE orders".
  from_role* str: Role that loses them.
list_grants(database, table): Lists which roles hold which privileges on tables and other objects.
  role str: Only privileges of this role.
create_role(instance): Creates a group role that cannot log in, for bundling privileges.
  name* str: Role name.
grant_role(instance): Makes a user a member of a role, inheriting its privileges.
  role* str: Role to grant.
  member* str: User or role that joins it.
  with_admin_option bool: Let the member grant the role to others.
create_backup(instance): Takes an on-demand backup of the instance.
  description str: Note to identify the backup.
list_backups(instance): Lists backups with their type, status, size and time.
  max_results int: Maximum number of backups.
restore_backup(instance): Restores a backup onto an instance, replacing all of its data.
  backup_id* str: Identifier of the backup.
  target_instance str: Instance to restore onto; defaults to the original.
delete_backup(instance): Deletes a backup.
  backup_id* str: Identifier of the backup.
point_in_time_restore(instance): Creates a new instance with the data as it was at a past moment,
    using backups and the write-ahead log.
  timestamp* datetime: The moment to recover to.
  new_instance* str: Name of the new instance.
export_table_csv(database, table*): Exports a table, or a query's result, to a CSV file with a header row.
  query str: Export this query's result instead of the whole table.
  destination* str: Path or storage URL of the file.
import_csv(database, table*): Loads rows from a CSV file into an existing table with COPY.
  source* str: Path or storage URL of the file.
  header bool: The first line names the columns.
  delimiter str: Field separator.
dump_schema(database, schema): Returns the DDL that recreates the database's tables, indexes, views and functions,
    without data.
  tables str[]: Only these tables.
create_read_replica(instance): Creates a read-only copy of an instance that follows it by streaming replication.
  replica_name* str: Name of the replica.
  region str: Region to place it in.
  tier str: Machine type.
promote_replica(instance*): Turns a read replica into a standalone primary that accepts writes,
    ending its replication.
list_replicas(instance): Lists an instance's replicas with their state and replication lag.
list_replication_slots(database): Lists replication slots with whether they are active and how much
    write-ahead log each retains.
drop_replication_slot(database): Deletes a replication slot, freeing the write-ahead log it retains.
  slot_name* str: Name of the slot.
create_publication(database): Publishes changes to tables for logical replication to subscribers.
  name* str: Publication name.
  tables str[]: Tables to publish; all tables when omitted.
create_subscription(database): Subscribes to a publication on another server, copying its tables
    and streaming changes.
  name* str: Subscription name.
  connection* str: Connection string of the publisher.
  publication* str: Publication to subscribe to.
get_setting(instance): Returns a server configuration parameter's value, unit, source and whether
    changing it needs a restart.
  name* str: Parameter name, such as "work_mem".
set_setting(instance): Changes a server configuration parameter, such as work_mem or max_connections.
  name* str: Parameter name.
  value* str: New value.
  scope enum(system|database|role): Where the change applies.
reload_configuration(instance*): Makes the server reread its configuration files without restarting.
restart_instance(instance*): Restarts the database server, dropping every connection.
  failover bool: Fail over to the standby instead of restarting in place.
get_instance_metrics(instance*): Returns recent CPU, memory, disk, connection count, transactions per second
    and cache hit ratio.
  period_minutes int: Window to average over.
set_connection_limit(database): Limits how many concurrent connections a database or role accepts.
  role str: Limit this role instead of the database.
  limit* int: Maximum connections; -1 removes the limit.
scale_instance(instance*): Changes an instance's machine size, its CPUs and memory; the server restarts.
  tier* str: New machine type, such as "db-custom-4-16384".
resize_storage(instance*): Increases an instance's disk size. Storage can grow but never shrink.
  size_gb* int: New size in GB.
  auto_grow bool: Grow automatically when nearly full.
set_maintenance_window(instance*): Sets the weekly day and hour when updates that restart the instance may run.
  day* enum(mon|tue|wed|thu|fri|sat|sun): Day of the week.
  hour* int: Hour, 0 to 23, UTC.
list_pending_maintenance(instance): Lists scheduled maintenance, such as version upgrades, with when it will run.
apply_migration(database): Applies a schema migration script in a transaction and records it as applied.
  version* str: Migration version, such as "20240315_add_orders".
  sql* str: The migration script.
list_migrations(database): Lists the migrations that have been applied, with when and by whom.
  pending bool: List known migrations not yet applied instead.
rollback_migration(database): Reverts the most recent migration with its down script.
  version str: Roll back to just before this version.
reset_sequence(database): Sets a sequence's next value, for example to the highest id in its table plus one.
  sequence* str: Sequence name.
  next_value int: Value to hand out next; defaults to the column's maximum plus one.
enable_row_level_security(database, table*): Turns row-level security on for a table,
    so only rows its policies allow are visible.
  force bool: Apply it to the table owner too.
create_policy(database, table*): Creates a row-level security policy limiting which rows a role may read
    or change.
  name* str: Policy name.
  command enum(ALL|SELECT|INSERT|UPDATE|DELETE): Commands it applies to.
  using* str: Expression rows must satisfy, such as "tenant_id = current_setting('app.tenant')::int".
  roles str[]: Roles it applies to.
create_partition(database, table*): Creates a partition of a partitioned table for a range or list of values.
  name* str: Name of the partition.
  bounds* str: For example "FROM ('2024-01-01') TO ('2024-02-01')".
detach_partition(database, table*): Detaches a partition so it becomes a standalone table, for example to archive it.
  partition* str: Name of the partition.
  concurrently bool: Detach without blocking queries.
list_partitions(database, table*): Lists the partitions of a partitioned table with their bounds and sizes.
clone_database(instance): Creates a new database as a copy of an existing one.
  source* str: Database to copy; nobody may be connected to it.
  name* str: Name of the copy.
comment_on(database): Sets the descriptive comment stored on a table, column or other object.
  object* str: Object, such as "TABLE orders" or "COLUMN orders.total".
  comment* str: The comment; empty removes it.
get_table_stats(database, table*): Returns a table's access statistics: sequential and index scans,
    rows inserted, updated and deleted, dead rows and when it was last vacuumed and analyzed.
"""

_KUBERNETES_SHARED = """
namespace str: Namespace of the object; defaults to the context's namespace.
name str: Name of the object.
deployment str: Name of a Deployment.
node str: Name of a node.
pod str: Name of a pod.
container str: Container in the pod; defaults to the first one.
label_selector str: Label selector, such as "app=web,tier!=cache".
context str: Kubeconfig context (cluster) to use; defaults to the current one.
"""

_KUBERNETES = """
list_pods(namespace, label_selector, context): Lists pods with their phase, readiness, restart count, node and age.
  all_namespaces bool: List pods in every namespace.
  field_selector str: Field selector, such as "status.phase=Failed".
get_pod(pod*, namespace, context): Describes a pod: its containers, images, conditions, volumes
    and recent events.
delete_pod(pod*, namespace, context): Deletes a pod; if a controller owns it, a replacement is created.
  grace_period_seconds int: Time to shut down; 0 kills it immediately.
get_pod_logs(pod*, container, namespace, context): Returns the log output of a container in a pod.
  tail_lines int: Only the last this-many lines.
  since_seconds int: Only lines from the last this-many seconds.
  previous bool: Logs of the previous, crashed instance of the container.
  timestamps bool: Prefix each line with its timestamp.
exec_in_pod(pod*, container, namespace, context): Runs a command inside a running container
    and returns its output and exit code.
  command* str[]: Command and arguments, such as ["ls", "-la", "/data"].
  stdin str: Text to pass on standard input.
port_forward(pod*, namespace, context): Forwards a local port to a port of a pod, to reach it from this machine.
  local_port* int: Port on this machine.
  remote_port* int: Port in the pod.
  duration_seconds int: How long to keep forwarding.
copy_to_pod(pod*, container, namespace, context): Copies a local file or directory into a container.
  local_path* str: Path on this machine.
  remote_path* str: Path in the container.
copy_from_pod(pod*, container, namespace, context): Copies a file or directory out of a container to this machine.
  remote_path* str: Path in the container.
  local_path* str: Path on this machine.
evict_pod(pod*, namespace, context): Evicts a pod through the eviction API, which respects
    PodDisruptionBudgets, unlike deleting it.
top_pods(namespace, label_selector, context): Shows the current CPU and memory use of pods, from the metrics server.
  containers bool: Break the figures down by container.
  sort_by enum(cpu|memory): Sort order.
debug_pod(pod*, namespace, context): Attaches an ephemeral debugging container with troubleshooting tools
    to a running pod, sharing its process namespace.
  image* str: Image of the debug container, such as "busybox".
  target_container str: Container whose processes to share.
run_pod(name*, namespace, context): Starts a single pod from an image, for a one-off task or experiment.
  image* str: Container image.
  command str[]: Command to run instead of the image's entrypoint.
  env obj: Environment variables.
  remove_after bool: Delete the pod when it exits.
create_deployment(name*, namespace, context): Creates a Deployment that keeps a number of replicas
    of a pod template running.
  image* str: Container image, such as "nginx:1.27".
  replicas int: Number of pods; defaults to 1.
  port int: Container port to expose.
  labels obj: Labels for the pods.
list_deployments(namespace, label_selector, context): Lists Deployments with their desired, ready, up-to-date
    and available replica counts.
scale_deployment(deployment*, namespace, context): Sets the number of replicas of a Deployment.
  replicas* int: Desired number of pods.
set_image(deployment*, container, namespace, context): Changes the image of a container in a Deployment,
    starting a rolling update.
  image* str: New image, such as "api:2.4.1".
rollout_status(deployment*, namespace, context): Waits for and reports the progress of a Deployment's rollout
    until every replica runs the new version or it times out.
  timeout_seconds int: How long to wait.
rollout_history(deployment*, namespace, context): Lists a Deployment's revisions with their change causes.
  revision int: Show the pod template of this revision.
rollout_undo(deployment*, namespace, context): Rolls a Deployment back to its previous revision,
    or to a given one.
  to_revision int: Revision to roll back to.
restart_deployment(deployment*, namespace, context): Restarts every pod of a Deployment with a rolling update,
    without changing its spec.
pause_rollout(deployment*, namespace, context): Pauses a Deployment so changes to it do not roll out
    until it is resumed.
resume_rollout(deployment*, namespace, context): Resumes a paused Deployment, rolling out the changes
    made while paused.
delete_deployment(deployment*, namespace, context): Deletes a Deployment and its ReplicaSets and pods.
  cascade enum(background|foreground|orphan): How to delete dependents.
set_env(deployment*, container, namespace, context): Sets or removes environment variables on a Deployment's
    containers, restarting its pods.
  env* obj: Variables to set; a null value removes one.
  from_configmap str: Import every key of this ConfigMap as variables.
set_resources(deployment*, container, namespace, context): Sets the CPU and memory requests and limits
    of a Deployment's containers.
  requests obj: For example {"cpu": "250m", "memory": "256Mi"}.
  limits obj: For example {"cpu": "1", "memory": "512Mi"}.
list_statefulsets(namespace, label_selector, context): Lists StatefulSets with their ready replicas.
scale_statefulset(name*, namespace, context): Sets the number of replicas of a StatefulSet; pods are added
    or removed one at a time in order.
  replicas* int: Desired number of pods.
list_daemonsets(namespace, label_selector, context): Lists DaemonSets with how many nodes should run
    their pod and how many do.
expose(namespace, context): Creates a Service that gives a Deployment's or pod's pods a stable address
    and load-balances across them.
  resource* str: What to expose, such as "deployment/web".
  port* int: Port the Service listens on.
  target_port int: Port on the pods.
  type enum(ClusterIP|NodePort|LoadBalancer): Service type; defaults to ClusterIP.
list_services(namespace, label_selector, context): Lists Services with their type, cluster IP,
    external IP and ports.
delete_service(name*, namespace, context): Deletes a Service.
get_endpoints(name*, namespace, context): Lists the pod IP addresses and ports a Service currently sends
    traffic to.
create_ingress(name*, namespace, context): Creates an Ingress that routes HTTP traffic for a host and path
    to a Service, with optional TLS.
  host* str: Host name, such as "shop.example.com".
  service* str: Service to route to.
  service_port* int: Port of the Service.
  path str: Path prefix; defaults to "/".
  tls_secret str: Secret holding the TLS certificate.
list_ingresses(namespace, context): Lists Ingresses with their hosts, addresses and backends.
delete_ingress(name*, namespace, context): Deletes an Ingress.
create_configmap(name*, namespace, context): Creates a ConfigMap holding non-secret configuration
    as key-value pairs or files.
  data* obj: Keys and their values.
get_configmap(name*, namespace, context): Returns the keys and values of a ConfigMap.
update_configmap(name*, namespace, context): Replaces or merges the data of a ConfigMap.
  data* obj: Keys and new values.
  merge bool: Keep keys not given.
delete_configmap(name*, namespace, context): Deletes a ConfigMap.
list_configmaps(namespace, label_selector, context): Lists ConfigMaps with their number of keys.
create_secret(name*, namespace, context): Creates an Opaque Secret from key-value pairs; values are stored
    base64-encoded.
  data* obj: Keys and their plain values.
get_secret(name*, namespace, context): Returns a Secret's keys with their values decoded.
  keys str[]: Only these keys.
delete_secret(name*, namespace, context): Deletes a Secret.
list_secrets(namespace, context): Lists Secrets with their types and number of keys, without values.
  type str: Only Secrets of this type, such as "kubernetes.io/tls".
create_registry_secret(name*, namespace, context): Creates a Secret with credentials for pulling images
    from a private container registry.
  server* str: Registry host, such as "ghcr.io".
  username* str: Registry user name.
  password* str: Registry password or token.
create_tls_secret(name*, namespace, context): Creates a Secret holding a TLS certificate and private key.
  cert* str: PEM certificate chain.
  key* str: PEM private key.
create_namespace(name*, context): Creates a namespace.
  labels obj: Labels for the namespace.
delete_namespace(name*, context): Deletes a namespace and everything in it.
list_namespaces(label_selector, context): Lists namespaces with their status and age.
set_resource_quota(namespace*, context): Caps the total CPU, memory, storage and object counts a namespace
    may use.
  hard* obj: Limits, such as {"requests.cpu": "10", "pods": "50"}.
get_resource_quota(namespace*, context): Shows a namespace's quotas with how much of each is used.
set_limit_range(namespace*, context): Sets the default and maximum CPU and memory for each container
    in a namespace.
  default_limits obj: Limits given to containers that set none.
  default_requests obj: Requests given to containers that set none.
  max obj: Largest limits allowed.
list_nodes(label_selector, context): Lists nodes with their status, roles, version, age and addresses.
get_node(node*, context): Describes a node: capacity, allocatable resources, conditions, taints
    and the pods on it.
cordon_node(node*, context): Marks a node unschedulable so no new pods are placed on it; running pods stay.
uncordon_node(node*, context): Marks a node schedulable again.
drain_node(node*, context): Evicts every pod from a node for maintenance, after cordoning it.
  ignore_daemonsets bool: Proceed although DaemonSet pods cannot be evicted.
  delete_emptydir_data bool: Evict pods that use emptyDir volumes, losing that data.
  timeout_seconds int: How long to wait.
label_node(node*, context): Adds, changes or removes labels on a node, for scheduling with node selectors.
  labels* obj: Labels to set; a null value removes one.
taint_node(node*, context): Adds a taint to a node so only pods that tolerate it are scheduled there.
  key* str: Taint key.
  value str: Taint value.
  effect* enum(NoSchedule|PreferNoSchedule|NoExecute): What the taint does.
remove_taint(node*, context): Removes a taint from a node.
  key* str: Taint key.
  effect enum(NoSchedule|PreferNoSchedule|NoExecute): Only the taint with this effect.
top_nodes(label_selector, context): Shows the current CPU and memory use of nodes, from the metrics server.
  sort_by enum(cpu|memory): Sort order.
create_job(name*, namespace, context): Creates a Job that runs pods until a number of them finish successfully.
  image* str: Container image.
  command str[]: Command to run.
  completions int: Successful runs needed.
  backoff_limit int: Retries before the Job fails.
list_jobs(namespace, label_selector, context): Lists Jobs with their completions, duration and status.
delete_job(name*, namespace, context): Deletes a Job and its pods.
trigger_cronjob(name*, namespace, context): Runs a CronJob now, by creating a Job from its template.
  job_name str: Name of the Job; generated when omitted.
create_cronjob(name*, namespace, context): Creates a CronJob that starts a Job on a cron schedule.
  schedule* str: Cron expression, such as "0 3 * * *".
  image* str: Container image.
  command str[]: Command to run.
  concurrency_policy enum(Allow|Forbid|Replace): What to do when the previous run is still going.
list_cronjobs(namespace, context): Lists CronJobs with their schedules, whether they are suspended
    and when they last ran.
suspend_cronjob(name*, namespace, context): Suspends a CronJob so it starts no new Jobs, or resumes it.
  suspend* bool: Whether it is suspended.
create_autoscaler(deployment*, namespace, context): Creates a HorizontalPodAutoscaler that scales
    a Deployment's replicas with CPU use.
  min_replicas int: Fewest pods.
  max_replicas* int: Most pods.
  cpu_percent int: Target average CPU use.
list_autoscalers(namespace, context): Lists HorizontalPodAutoscalers with their targets, current metrics
    and replica counts.
delete_autoscaler(name*, namespace, context): Deletes a HorizontalPodAutoscaler; replicas stay at their current count.
create_pvc(name*, namespace, context): Creates a PersistentVolumeClaim, requesting storage for pods to mount.
  size* str: Requested size, such as "20Gi".
  storage_class str: StorageClass; defaults to the cluster default.
  access_mode enum(ReadWriteOnce|ReadOnlyMany|ReadWriteMany|ReadWriteOncePod): How it can be mounted.
list_pvcs(namespace, context): Lists PersistentVolumeClaims with their status, volume, capacity and class.
delete_pvc(name*, namespace, context): Deletes a PersistentVolumeClaim; the volume may be deleted too,
    depending on its reclaim policy.
resize_pvc(name*, namespace, context): Expands a PersistentVolumeClaim to a larger size,
    if its StorageClass allows expansion.
  size* str: New size, such as "50Gi".
list_persistent_volumes(context): Lists PersistentVolumes with capacity, reclaim policy, status
    and the claim bound to each.
  storage_class str: Only volumes of this class.
list_storage_classes(context): Lists StorageClasses with their provisioners, reclaim policies
    and which one is the default.
  default_only bool: Only the default class.
create_service_account(name*, namespace, context): Creates a ServiceAccount, an identity for processes
    running in pods.
  image_pull_secrets str[]: Secrets used to pull images for its pods.
create_role(name*, namespace, context): Creates a Role granting verbs on resources within one namespace.
  verbs* str[]: Verbs, such as ["get", "list", "watch"].
  resources* str[]: Resources, such as ["pods", "pods/log"].
create_role_binding(name*, namespace, context): Grants a Role or ClusterRole to users, groups
    or service accounts within one namespace.
  role* str: Role or "ClusterRole/name".
  subjects* str[]: Such as "user:alice" or "serviceaccount:ci:deployer".
create_cluster_role_binding(name*, context): Grants a ClusterRole to users, groups or service accounts
    across every namespace.
  cluster_role* str: ClusterRole to grant.
  subjects* str[]: Such as "group:sre".
can_i(namespace, context): Checks whether the caller, or someone impersonated, may perform a verb on a resource.
  verb* str: Verb, such as "delete".
  resource* str: Resource, such as "deployments".
  as_user str: User to check instead of the caller.
list_role_bindings(namespace, context): Lists RoleBindings and ClusterRoleBindings with their roles and subjects.
  subject str: Only bindings naming this user, group or service account.
create_token(name*, namespace, context): Issues a short-lived token for a ServiceAccount, for authenticating
    to the API server.
  duration_seconds int: Lifetime of the token.
  audience str: Intended audience.
list_events(namespace, context): Lists recent cluster events, such as scheduling failures, image pull errors
    and OOM kills, newest last.
  involved_object str: Only events about this object, such as "pod/web-7d4b9".
  type enum(Normal|Warning): Only events of this type.
apply_manifest(namespace, context): Creates or updates objects from YAML or JSON manifests,
    declaratively, like kubectl apply.
  manifest* str: One or more YAML documents.
  dry_run enum(none|client|server): Validate without persisting.
  server_side bool: Use server-side apply.
delete_manifest(namespace, context): Deletes the objects described by YAML manifests.
  manifest* str: One or more YAML documents.
  wait bool: Wait until they are gone.
diff_manifest(namespace, context): Shows what applying manifests would change in the live cluster,
    as a diff.
  manifest* str: One or more YAML documents.
get_resource(name, namespace, label_selector, context): Returns any object, of any kind including custom
    resources, as YAML.
  kind* str: Kind or resource, such as "ingress" or "certificates.cert-manager.io".
  output enum(yaml|json|wide): Output format.
patch_resource(name*, namespace, context): Changes fields of a live object with a strategic merge,
    JSON merge or JSON patch.
  kind* str: Kind of the object.
  patch* str: The patch.
  type enum(strategic|merge|json): Patch type.
label_resource(name*, namespace, context): Adds, changes or removes labels on any object.
  kind* str: Kind of the object.
  labels* obj: Labels to set; a null value removes one.
  overwrite bool: Allow replacing existing values.
annotate_resource(name*, namespace, context): Adds, changes or removes annotations on any object.
  kind* str: Kind of the object.
  annotations* obj: Annotations to set; a null value removes one.
explain_resource(context): Documents the fields of a resource kind from the API schema,
    such as "deployment.spec.strategy".
  field_path* str: Kind and field path.
  recursive bool: Show every nested field.
list_api_resources(context): Lists the resource kinds the cluster serves, with their short names,
    API groups and whether they are namespaced.
  api_group str: Only this API group.
wait_for_condition(name, namespace, label_selector, context): Waits until objects reach a condition,
    such as pods Ready or a Job Complete, or are deleted.
  kind* str: Kind of the objects.
  condition* str: For example "condition=Ready" or "delete".
  timeout_seconds int: How long to wait.
list_contexts: Lists the contexts in the kubeconfig, with their cluster, user and namespace,
    marking the current one.
  kubeconfig str: Path of the kubeconfig file.
use_context(context*): Makes a kubeconfig context the current one, switching cluster.
  namespace str: Also set its default namespace.
get_cluster_info(context): Returns the control plane's address, the Kubernetes server version
    and the cluster's core services.
create_network_policy(name*, namespace, context): Creates a NetworkPolicy that restricts which pods
    and addresses may connect to selected pods.
  pod_selector* obj: Pods the policy applies to.
  ingress obj[]: Allowed incoming sources and ports.
  egress obj[]: Allowed outgoing destinations and ports.
create_pod_disruption_budget(name*, namespace, label_selector*, context): Limits how many pods of an application
    voluntary disruptions, such as node drains, may take down at once.
  min_available str: Pods that must stay up, as a count or percentage.
  max_unavailable str: Pods that may be down, as a count or percentage.
"""

_CHAT_SHARED = """
channel str: Channel, private group or direct message id, such as "C024BE91L".
ts str: Timestamp identifying a message in its channel, such as "1712345678.000200".
user str: User id, such as "U061F7AUR".
users str[]: User ids.
text str: Message text in mrkdwn, with <@U123> mentions and <#C123> channel links.
blocks obj[]: Block Kit layout blocks, shown instead of the text in clients that support them.
thread_ts str: Timestamp of a thread's parent message, to reply in that thread.
cursor str: Pagination cursor from the previous page's response_metadata.next_cursor.
limit int: Maximum number of items per page; defaults to 100.
"""

_CHAT = """
post_message(channel*, text*, blocks, thread_ts): Sends a message to a channel, direct message or thread
    as the app.
  reply_broadcast bool: Also show a thread reply in the channel.
  unfurl_links bool: Show previews of linked pages.
post_ephemeral(channel*, user*, text*, blocks): Shows a message to one user in a channel that nobody else sees
    and that disappears when they reload.
update_message(channel*, ts*, text, blocks): Changes the text or blocks of a message the app posted.
delete_message(channel*, ts*): Deletes a message the app posted, or any message with an admin token.
schedule_message(channel*, text*, blocks, thread_ts): Queues a message to be posted to a channel at a later time,
    up to 120 days ahead.
  post_at* datetime: When to post it.
list_scheduled_messages(channel, cursor, limit): Lists the messages waiting to be posted,
    with their channels and times.
delete_scheduled_message(channel*): Cancels a message that was queued to be posted later.
  scheduled_message_id* str: Identifier returned when it was queued.
get_channel_history(channel*, cursor, limit): Returns the messages posted in a conversation,
    newest first, optionally within a time window.
  oldest str: Only messages after this timestamp.
  latest str: Only messages before this timestamp.
get_thread_replies(channel*, thread_ts*, cursor, limit): Returns the parent message of a thread
    and all of the replies to it.
get_permalink(channel*, ts*): Returns a link that opens a message for anyone in the workspace who can see it.
search_messages(cursor): Searches messages across the workspace with modifiers such as in:#channel,
    from:@user and before:2024-05-01.
  query* str: Search query.
  sort enum(score|timestamp): Sort by relevance or time.
  count int: Results per page.
forward_message(channel*, ts*, text): Shares an existing message into another conversation with an optional comment.
  destination* str: Channel or conversation to share it to.
pin_message(channel*, ts*): Pins a message to a channel, so members find it in the channel's pinned items.
unpin_message(channel*, ts*): Removes a message from a channel's pinned items.
list_pins(channel*): Lists the items pinned to a channel.
  include_files bool: Include pinned files.
add_reaction(channel*, ts*): Adds an emoji reaction to a message.
  emoji* str: Emoji name without colons, such as "thumbsup".
remove_reaction(channel*, ts*): Removes an emoji reaction the caller added to a message.
  emoji* str: Emoji name without colons.
list_reactions(channel*, ts*): Returns the emoji reactions on a message with the users behind each.
  full bool: List every user for each reaction.
mark_read(channel*, ts*): Moves the caller's read cursor in a conversation to a message,
    marking everything up to it as read.
unfurl_links(channel*, ts*): Supplies the previews shown for URLs in a message, for links to the app's own domain.
  unfurls* obj: URL to the blocks of its preview.
create_channel: Creates a public or private channel.
  name* str: Channel name: lowercase, no spaces, at most 80 characters.
  is_private bool: Create a private channel.
  team_id str: Workspace, on Enterprise Grid.
archive_channel(channel*): Archives a channel: it becomes read-only and leaves the channel list.
unarchive_channel(channel*): Brings an archived channel back so members can post in it again.
rename_channel(channel*): Changes a channel's name.
  name* str: New name.
set_topic(channel*): Sets the short topic shown in a channel's header.
  topic* str: The topic; at most 250 characters.
set_purpose(channel*): Sets the description of what a channel is for, shown in its details.
  purpose* str: The description.
invite_to_channel(channel*, users*): Adds people to a channel.
  force bool: Invite the valid users even if some ids are invalid.
remove_from_channel(channel*, user*): Removes a person from a channel.
join_channel(channel*): Makes the caller a member of an existing public channel.
leave_channel(channel*): Takes the caller out of a channel.
list_channels(cursor, limit): Lists the channels in the workspace.
  types enum(public_channel|private_channel|mpim|im)[]: Kinds of conversation to list.
  exclude_archived bool: Leave out archived channels.
get_channel_info(channel*): Returns a channel's name, topic, purpose, creator, creation date and member count.
  include_num_members bool: Include the number of members.
list_channel_members(channel*, cursor, limit): Lists the user ids of a channel's members.
convert_to_private(channel*): Changes a public channel into a private one; this cannot be undone.
share_externally(channel*): Invites another organization to a channel through Slack Connect,
    so people outside the company can join it.
  emails* email[]: People at the other organization to invite.
  external_limited bool: Keep the guests from inviting others.
open_conversation(users*): Opens, or finds, a direct message with one person or a group DM with up to
    eight people, and returns its id.
  return_im bool: Return the full conversation object.
list_users(cursor, limit): Lists everyone in the workspace, including deactivated people and bots.
  include_locale bool: Include each user's locale.
get_user(user*): Returns a person's account details: name, title, time zone, whether they are an admin or a bot.
lookup_by_email: Finds a person in the workspace by their email address.
  email* email: The address.
get_presence(user*): Tells whether a person is currently active or away.
set_presence: Sets the caller to automatically active or manually away.
  presence* enum(auto|away): The presence.
set_status: Sets the caller's custom status, an emoji and short text, optionally expiring.
  status_text* str: Up to 100 characters, such as "In a meeting".
  status_emoji str: Emoji, such as ":calendar:".
  expiration datetime: When to clear it.
clear_status: Removes the caller's custom status.
  user str: Clear someone else's, with an admin token.
set_profile_field(user): Sets a field of a person's profile, such as title, phone, pronouns or a custom field.
  field* str: Field name or custom field id.
  value* str: New value.
get_profile(user): Returns a person's profile fields, including custom fields.
  include_labels bool: Include the labels of custom fields.
deactivate_user(user*): Deactivates a person's account, signing them out everywhere; their messages remain.
invite_to_workspace(channel): Invites someone to join the workspace by email, as a member or a guest.
  email* email: Who to invite.
  guest bool: Invite as a guest limited to some channels.
  custom_message str: Note in the invitation email.
create_user_group(users): Creates a user group with a @handle that notifies all its members when mentioned.
  name* str: Display name, such as "Marketing Team".
  handle* str: Mention handle, such as "marketing".
  description str: Description.
update_user_group_members(users*): Replaces the complete member list of a user group.
  usergroup* str: Identifier of the group.
disable_user_group: Disables a user group so its @handle no longer notifies anyone.
  usergroup* str: Identifier of the group.
list_user_groups: Lists user groups with their handles and member counts.
  include_users bool: Include each group's members.
  include_disabled bool: Include disabled groups.
snooze_notifications: Turns on Do Not Disturb for the caller for a number of minutes.
  num_minutes* int: How long to pause notifications.
end_snooze: Turns Do Not Disturb off for the caller right away.
  end_scheduled bool: Also end the scheduled daily quiet hours for today.
get_dnd_status(user): Returns whether a person's notifications are paused and when their quiet hours are.
add_reminder(user, text*): Creates a reminder that Slackbot delivers at a time, once or repeating.
  time* str: When: a Unix time, or text such as "in 15 minutes" or "every Thursday at 2pm".
list_reminders: Lists the reminders created by or for the caller.
  team_id str: Workspace, on Enterprise Grid.
complete_reminder: Marks a reminder as done.
  reminder* str: Identifier of the reminder.
delete_reminder: Deletes a reminder.
  reminder* str: Identifier of the reminder.
upload_file(thread_ts): Uploads a file and optionally shares it in channels with a comment.
  filename* str: File name.
  content_base64* str: File contents, base64-encoded.
  channels str[]: Conversations to share it in.
  initial_comment str: Message posted with it.
delete_file: Deletes a file from the workspace.
  file* str: Identifier of the file, such as "F0123456".
list_files(channel, user, cursor, limit): Lists files uploaded to the workspace, newest first.
  types enum(all|images|pdfs|snippets|gdocs|zips)[]: Only these kinds of file.
share_file_publicly: Creates a public URL for a file so people outside the workspace can open it.
  file* str: Identifier of the file.
revoke_public_url: Turns off a file's public URL.
  file* str: Identifier of the file.
get_file_info: Returns a file's metadata, the channels it was shared in and its comments.
  file* str: Identifier of the file.
add_bookmark(channel*): Adds a link to the bookmarks bar at the top of a channel.
  title* str: Text shown for it.
  link* uri: URL it opens.
  emoji str: Emoji shown next to it.
remove_bookmark(channel*): Removes a link from a channel's bookmarks bar.
  bookmark_id* str: Identifier of the bookmark.
list_bookmarks(channel*): Lists the links in a channel's bookmarks bar.
save_for_later(channel*, ts*): Adds a message to the caller's saved items, to come back to it later.
  due datetime: When to be reminded about it.
list_saved_items(cursor, limit): Lists the messages and files the caller saved for later.
  include_completed bool: Include items marked completed.
add_emoji: Adds a custom emoji to the workspace from an image URL, or as an alias of another emoji.
  name* str: Emoji name without colons.
  url uri: Image URL.
  alias_for str: Existing emoji to alias.
list_emoji: Lists the workspace's custom emoji with their image URLs.
  include_categories bool: Include the standard emoji categories.
remove_emoji: Removes a custom emoji from the workspace.
  name* str: Emoji name without colons.
open_modal: Opens a modal dialog for a user in response to an interaction, such as a slash command
    or button click.
  trigger_id* str: Trigger id from the interaction, valid for 3 seconds.
  view* obj: The modal view with its blocks.
publish_home_tab(user*): Publishes the view a person sees in the app's Home tab.
  view* obj: The home view with its blocks.
trigger_workflow: Starts a workflow through its webhook trigger with input values.
  webhook_url* uri: The workflow's trigger URL.
  inputs obj: Values for the workflow's variables.
start_call(channel, users): Registers a call from an external calling service and posts it in a channel,
    so people can join from there.
  external_unique_id* str: The call's id in the calling service.
  join_url* uri: URL people open to join.
  title str: Name of the call.
create_canvas(channel): Creates a canvas, a shareable document, from Markdown, optionally as a channel's canvas.
  title* str: Title.
  markdown* str: Content.
edit_canvas: Inserts, replaces or deletes sections of a canvas.
  canvas_id* str: Identifier of the canvas.
  changes* obj[]: Operations such as insert_at_end or replace, with Markdown content.
delete_canvas: Deletes a canvas.
  canvas_id* str: Identifier of the canvas.
set_retention_policy(channel): Sets how long messages and files are kept before they are deleted,
    for the workspace or one channel.
  retention_days* int: Days to keep them; 0 keeps them forever.
  include_files bool: Apply it to files as well.
export_workspace_data: Starts an export of the workspace's messages and files for compliance or migration.
  start_date* date: First day to include.
  end_date* date: Last day to include.
  include_private bool: Include private channels and direct messages, where the plan allows.
list_access_logs(cursor, limit): Lists sign-ins to the workspace with user, IP address, device and time.
  before datetime: Only entries before this time.
list_integration_logs(user, cursor, limit): Lists when apps and integrations were installed, changed
    or removed, and by whom.
  app_id str: Only entries of this app.
approve_app: Approves an app a member requested, letting it be installed in the workspace.
  request_id* str: Identifier of the install request.
  team_id str: Workspace, on Enterprise Grid.
restrict_app: Blocks an app from being installed in the workspace.
  app_id* str: Identifier of the app.
  team_id str: Workspace, on Enterprise Grid.
get_workspace_info: Returns the workspace's name, domain, icon and plan.
  team str: Workspace id; defaults to the caller's.
list_billable_users(user, cursor, limit): Lists the members the workspace is billed for and whether each is
    currently active.
post_webhook(text*, blocks): Posts a message through an incoming webhook URL, which is tied to one channel.
  webhook_url* uri: The incoming webhook URL.
create_sidebar_section: Creates a custom section in the caller's sidebar and moves channels into it.
  name* str: Section name.
  channels str[]: Channels to put in it.
create_poll(channel*): Posts a poll with options people vote on by clicking buttons.
  question* str: The question.
  options* str[]: Between 2 and 10 answers.
  anonymous bool: Hide who voted for what.
accept_shared_invite: Accepts an invitation from another organization to join one of its Slack Connect channels.
  invite_id* str: Identifier of the invitation.
  channel_name str: Name the channel gets in this workspace.
set_photo: Sets the caller's profile picture from an image.
  image_base64* str: The image, base64-encoded.
  crop_w int: Width of the square crop.
set_default_channels(channel): Sets the channels every new member joins automatically.
  channel_ids* str[]: The channels.
connect_socket_mode: Opens a WebSocket URL on which the app receives events and interactions,
    without a public HTTP endpoint.
  app_token* str: App-level token with the connections:write scope.
get_unread_counts: Returns, per conversation, how many messages and mentions the caller has not read.
  types enum(public_channel|private_channel|mpim|im)[]: Kinds of conversation to count.
list_drafts(cursor, limit): Lists the messages the caller has started writing but not sent.
  channel str: Only drafts in this conversation.
mute_channel(channel*): Mutes a channel for the caller, so it no longer shows as unread or sends notifications,
    except for direct mentions.
  muted* bool: Mute it, or unmute it.
report_message(channel*, ts*): Flags a message to the workspace admins as inappropriate or harmful.
  reason* enum(harassment|spam|inappropriate|other): Why it is reported.
  comment str: Details for the admins.
list_mentions(cursor, limit): Lists recent messages that mention the caller or their groups.
  since datetime: Only mentions after this time.
create_invite_link: Creates a shareable link anyone can use to join the workspace, for a limited time.
  expires_in_days int: Days the link stays valid, at most 30.
  max_uses int: Number of people who can use it, at most 400.
"""

_SOURCES: dict[str, tuple[str, str]] = {
    "fs": (_FS_SHARED, _FS),
    "git": (_GIT_SHARED, _GIT),
    "calendar": (_CALENDAR_SHARED, _CALENDAR),
    "payments": (_PAYMENTS_SHARED, _PAYMENTS),
    "email": (_EMAIL_SHARED, _EMAIL),
    "issues": (_ISSUES_SHARED, _ISSUES),
    "storage": (_STORAGE_SHARED, _STORAGE),
    "database": (_DATABASE_SHARED, _DATABASE),
    "kubernetes": (_KUBERNETES_SHARED, _KUBERNETES),
    "chat": (_CHAT_SHARED, _CHAT),
}
