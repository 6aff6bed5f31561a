/** read_file */
type Args0 = {
  /** Absolute path of the file. */
  path: string;
  /** First line to read (1-based). */
  offset?: number;
  limit?: number;
};

/** write_file */
type Args1 = {
  path: string;
  /** Full new content. Ends a comment: *\/ (escaped). */
  content: string;
};

/** edit_file */
type Args2 = {
  path: string;
  /** Replacements, applied in order. */
  edits: {
    /** Text to find (must be unique). */
    oldText: string;
    newText: string;
  }[];
  dryRun?: boolean;
};

/** bash */
type Args3 = {
  command: string;
  /** Milliseconds; null for none. */
  timeout?: number | null;
  env?: Record<string, string>;
};

/** grep */
type Args4 = {
  pattern: string;
  path?: string;
  output_mode?: "content" | "files_with_matches" | "count";
  /** Case-insensitive. */
  "-i"?: boolean;
  "-A"?: number;
  context?: number | null;
  globs?: (string | number)[] | null;
};

/** mcp.search */
type Args5 = {
  query: string;
  filter?: string | {
    field: string;
    value?: string | number | boolean;
  };
  mode?: "fuzzy";
};

/** my-tool */
type Args6 = {
  version: 2;
  flag?: true;
  nothing?: null;
};

/** set_level */
type Args7 = {
  level: 0 | 1 | 2.5 | -3 | null | true;
  scale?: 1 | 10 | 100;
};

/** tree */
type Args8 = {
  root: {
    name: string;
    children?: unknown[];
  };
};

/** http_request */
type Args9 = {
  url: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  headers?: Record<string, string>;
  body?: string | Record<string, unknown> | null;
  "Content-Type"?: string;
};

/** new */
type Args10 = {
  kind: "file" | "dir";
};

/** config_patch */
type Args11 = {
  target: string;
} & {
  dry?: boolean;
};

/** list_tools */
type Args12 = Record<string, unknown>;

/** 搜索 */
type Args13 = {
  "词": string;
};

/** count_words */
type Args14 = {
  text: string;
};

/** search_text */
type Args15 = {
  query: string;
};

/** job_id */
type Args16 = Record<string, unknown>;

/** is_clean */
type Args17 = Record<string, unknown>;

/** find_user */
type Args18 = {
  login: string;
};

/** read_note */
type Args19 = {
  key: string;
};

/** resolve_ref */
type Args20 = {
  ref: string;
};

/** find_symbol */
type Args21 = {
  name: string;
};

/** word_counts */
type Args22 = {
  text: string;
};

/** symbols_by_file */
type Args23 = {
  names: string[];
};
