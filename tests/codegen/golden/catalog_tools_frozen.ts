declare const tools: {
  /** Run a shell command. */
  bash(args: {
    command: string;
    env?: Record<string, string>;
    /** Milliseconds; null for none. */
    timeout?: number | null;
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
    characters: number;
    lines: number;
    words: number;
  }>;
  /** Apply exact-text replacements to a file. */
  edit_file(args: {
    dryRun?: boolean;
    /** Replacements, applied in order. */
    edits: {
      newText: string;
      /** Text to find (must be unique). */
      oldText: string;
    }[];
    path: string;
  }): Promise<string>;
  /** Search file contents with a regular expression. */
  grep(args: {
    "-A"?: number;
    /** Case-insensitive. */
    "-i"?: boolean;
    context?: number | null;
    globs?: (string | number)[] | null;
    output_mode?: "content" | "files_with_matches" | "count";
    path?: string;
    pattern: string;
  }): Promise<string>;
  /** Send an HTTP request. */
  http_request(args: {
    "Content-Type"?: string;
    body?: string | Record<string, unknown> | null;
    headers?: Record<string, string>;
    method: "GET" | "POST" | "PUT" | "DELETE";
    url: string;
  }): Promise<string>;
  /** Whether the tree has no changes. */
  is_clean(args: Record<string, unknown>): Promise<boolean>;
  /** Start a job; resolves to its id. */
  job_id(args: Record<string, unknown>): Promise<string>;
  list_tools(args: Record<string, unknown>): Promise<string>;
  /** MCP: search the index. */
  "mcp.search"(args: {
    filter?: string | {
      field: string;
      value?: string | number | boolean;
    };
    mode?: "fuzzy";
    query: string;
  }): Promise<string>;
  /** A hyphenated MCP tool name. */
  "my-tool"(args: {
    flag?: true;
    nothing?: null;
    version: 2;
  }): Promise<string>;
  /** A tool whose name is a TypeScript keyword in method position. */
  "new"(args: {
    kind: "file" | "dir";
  }): Promise<string>;
  /** Read a text file. Returns numbered lines. */
  read_file(args: {
    limit?: number;
    /** First line to read (1-based). */
    offset?: number;
    /** Absolute path of the file. */
    path: string;
  }): Promise<string>;
  /** Find the lines that contain a string. */
  search_text(args: {
    query: string;
  }): Promise<{
    line: number;
    /** Relative to the workspace. */
    path: string;
    text: string;
  }[]>;
  /** Set the verbosity level. */
  set_level(args: {
    level: 0 | 1 | 2.5 | -3 | null | true;
    scale?: 1 | 10 | 100;
  }): Promise<string>;
  /** Create a directory tree from a recursive spec. */
  tree(args: {
    root: {
      children?: unknown[];
      name: string;
    };
  }): Promise<string>;
  /** Write a file, replacing it. Use /* comments *\/ freely. */
  write_file(args: {
    /** Full new content. Ends a comment: *\/ (escaped). */
    content: string;
    path: string;
  }): Promise<string>;
  /** Unicode tool name; quoted. */
  "搜索"(args: {
    "词": string;
  }): Promise<string>;
};
