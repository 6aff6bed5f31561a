declare const tools: {
  /** Run a shell command. */
  bash(args: {
    command: string;
    /** Milliseconds; null for none. */
    timeout?: number | null;
    env?: Record<string, string>;
  }): Promise<string>;
  /** Patch the configuration. */
  config_patch(args: {
    target: string;
  } & {
    dry?: boolean;
  }): Promise<string>;
  /** Count the words, lines and characters of a text. */
  count_words(args: {
    text: string;
  }): Promise<{
    words: number;
    lines: number;
    characters: number;
  }>;
  /** Apply exact-text replacements to a file. */
  edit_file(args: {
    path: string;
    /** Replacements, applied in order. */
    edits: {
      /** Text to find (must be unique). */
      oldText: string;
      newText: string;
    }[];
    dryRun?: boolean;
  }): Promise<string>;
  /** Where a symbol is defined. */
  find_symbol(args: {
    name: string;
  }): Promise<{
    kind: "hit";
    /** Relative to the workspace. */
    path: string;
    line: number;
  } | {
    kind: "miss";
    reason: string;
  }>;
  /** Look a user up by login; null when there is none. */
  find_user(args: {
    login: string;
  }): Promise<{
    name: string;
    email: string | null;
    role: "admin" | "member" | null;
    manager: {
      login: string;
    } | null;
    teams: string[] | null;
  } | null>;
  /** Search file contents with a regular expression. */
  grep(args: {
    pattern: string;
    path?: string;
    output_mode?: "content" | "files_with_matches" | "count";
    /** Case-insensitive. */
    "-i"?: boolean;
    "-A"?: number;
    context?: number | null;
    globs?: (string | number)[] | null;
  }): Promise<string>;
  /** Send an HTTP request. */
  http_request(args: {
    url: string;
    method: "GET" | "POST" | "PUT" | "DELETE";
    headers?: Record<string, string>;
    body?: string | Record<string, unknown> | null;
    "Content-Type"?: string;
  }): Promise<string>;
  /** Whether the tree has no changes. */
  is_clean(args: Record<string, unknown>): Promise<boolean>;
  /** Start a job; resolves to its id. */
  job_id(args: Record<string, unknown>): Promise<string>;
  list_tools(args: Record<string, unknown>): Promise<string>;
  /** MCP: search the index. */
  "mcp.search"(args: {
    query: string;
    filter?: string | {
      field: string;
      value?: string | number | boolean;
    };
    mode?: "fuzzy";
  }): Promise<string>;
  /** A hyphenated MCP tool name. */
  "my-tool"(args: {
    version: 2;
    flag?: true;
    nothing?: null;
  }): Promise<string>;
  /** A tool whose name is a TypeScript keyword in method position. */
  "new"(args: {
    kind: "file" | "dir";
  }): Promise<string>;
  /** Read a text file. Returns numbered lines. */
  read_file(args: {
    /** Absolute path of the file. */
    path: string;
    /** First line to read (1-based). */
    offset?: number;
    limit?: number;
  }): Promise<string>;
  /** The note's text; null when it was never written. */
  read_note(args: {
    key: string;
  }): Promise<string | null>;
  /** A commit id, or a pull request number. */
  resolve_ref(args: {
    ref: string;
  }): Promise<string | number>;
  /** Find the lines that contain a string. */
  search_text(args: {
    query: string;
  }): Promise<{
    /** Relative to the workspace. */
    path: string;
    line: number;
    text: string;
  }[]>;
  /** Set the verbosity level. */
  set_level(args: {
    level: 0 | 1 | 2.5 | -3 | null | true;
    scale?: 1 | 10 | 100;
  }): Promise<string>;
  /** Each file's findings; null when nothing was indexed. */
  symbols_by_file(args: {
    names: string[];
  }): Promise<Record<string, ({
    kind: "hit";
    /** Relative to the workspace. */
    path: string;
    line: number;
  } | {
    kind: "miss";
    reason: string;
  })[]> | null>;
  /** Create a directory tree from a recursive spec. */
  tree(args: {
    root: {
      name: string;
      children?: unknown[];
    };
  }): Promise<string>;
  /** How often each word occurs. */
  word_counts(args: {
    text: string;
  }): Promise<Record<string, number>>;
  /** Write a file, replacing it. Use /* comments *\/ freely. */
  write_file(args: {
    path: string;
    /** Full new content. Ends a comment: *\/ (escaped). */
    content: string;
  }): Promise<string>;
  /** Unicode tool name; quoted. */
  "搜索"(args: {
    "词": string;
  }): Promise<string>;
};
