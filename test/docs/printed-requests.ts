/**
 * The HTTP requests a README prints, found mechanically so that a request added to a README
 * is run by test/docs/readme-requests.test.ts without anyone listing it, and an edited one is
 * run as edited. Three forms are requests:
 *
 * - a `curl` command line (in any code block; `\` continues it), aimed at
 *   `http://127.0.0.1:3000`, what `npm run demo` prints. A trailing `# 403 read_only at
 *   /data/attributes/createdAt` comment states the status it gets (then, optionally, the
 *   error's `code` and its `source` pointer or parameter; see `readComment`); without one it
 *   must succeed.
 * - an ```http block: the request line, headers, a blank line and the body. An ```http block
 *   right after it that starts with `HTTP/1.1 <status>` is its answer: that status and each
 *   header it prints. Without one it must succeed.
 * - `GET /path` (or HEAD, DELETE, POST, PATCH) anywhere else, in prose, tables or code
 *   comments, on a concrete path: one with `{`, `<` or `...` in it is a template, not a
 *   request. It must succeed; a POST or PATCH printed so has no body and is not a request
 *   anyone can send as printed: it names an endpoint, which the demo's OpenAPI document must
 *   list.
 */

/** What the README says the answer is. */
export interface Expected {
  /** The status; undefined: any 2xx. */
  readonly status?: number;
  /** The error's `code`. */
  readonly code?: string;
  /** The error's `source.pointer` (starting with `/`) or `source.parameter`. */
  readonly source?: string;
  /** Response headers the README prints, by lower-case name. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface PrintedRequest {
  /** The README, relative to the repository. */
  readonly readme: string;
  /** 1-based line where the request starts. */
  readonly line: number;
  /** How it is printed. */
  readonly form: 'curl' | 'http' | 'inline';
  /** The request as printed, for test names. */
  readonly text: string;
  readonly method: string;
  /** Path and query, from the origin on. */
  readonly path: string;
  /** Header name and value pairs, in order. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: string;
  readonly expected: Expected;
  /** curl only: whether `-g` was given (brackets in the URL need it). */
  readonly globOff?: boolean;
}

/** The origin `npm run demo` prints and curl lines are aimed at. */
export const DEMO_ORIGIN = 'http://127.0.0.1:3000';

const METHODS = 'GET|HEAD|POST|PATCH|PUT|DELETE';
const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** Every request `text` (the README `readme`) prints, in order of their lines. */
export function printedRequests(readme: string, text: string): PrintedRequest[] {
  const requests: PrintedRequest[] = [];
  // Blanked out once read, so that the inline scan does not find them a second time.
  let rest = text;
  const blank = (start: number, end: number) => {
    rest = rest.slice(0, start) + rest.slice(start, end).replace(/[^\n]/g, ' ') + rest.slice(end);
  };

  const fence = /^( *)```http[ \t]*\n([\s\S]*?)^\1```[ \t]*$/gm;
  const blocks = [...text.matchAll(fence)];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    const content = block[2]!;
    blank(block.index, block.index + block[0].length);
    if (/^HTTP\/\d(\.\d)? /.test(content)) continue; // an answer, read with its request
    const answer = blocks[i + 1];
    const between = answer ? text.slice(block.index + block[0].length, answer.index) : '';
    const expected =
      answer && between.trim() === '' && /^HTTP\/\d(\.\d)? /.test(answer[2]!) ? readAnswer(answer[2]!) : {};
    requests.push({
      ...readHttp(content),
      readme,
      line: lineOf(text, block.index) + 1,
      form: 'http',
      text: content.split('\n')[0]!,
      expected,
    });
  }

  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*(\$\s+)?curl\s/.test(lines[i]!)) continue;
    let command = lines[i]!;
    const start = i;
    while (/\\\s*$/.test(command) && i + 1 < lines.length) command = command.replace(/\\\s*$/, ' ') + lines[++i]!;
    requests.push({ ...readCurl(command), readme, line: start + 1, form: 'curl', text: command.trim() });
  }

  const inline = new RegExp(`\\b(${METHODS})\\s+(/[^\\s\`'")|]*)`, 'g');
  for (const match of rest.matchAll(inline)) {
    const path = match[2]!.replace(/[.,;:]+$/, '');
    if (/[{<]|\.\.\./.test(path)) continue; // a template
    requests.push({
      readme,
      line: lineOf(text, match.index),
      form: 'inline',
      text: `${match[1]} ${path}`,
      method: match[1]!,
      path,
      headers: [],
      expected: {},
    });
  }
  return requests.sort((a, b) => a.line - b.line);
}

/** An ```http request: request line, headers, blank line, body. */
function readHttp(content: string): Pick<PrintedRequest, 'method' | 'path' | 'headers' | 'body'> {
  const [head, ...body] = content.trim().split(/\n\s*\n/);
  const [requestLine, ...headerLines] = head!.split('\n');
  const request = new RegExp(`^(${METHODS}) (\\S+)(?: HTTP/\\S+)?$`).exec(requestLine!.trim());
  if (!request) throw new Error(`not a request line: ${requestLine}`);
  const joined = body.join('\n\n').trim();
  return {
    method: request[1]!,
    path: request[2]!,
    headers: headerLines.map(header),
    ...(joined !== '' && { body: joined }),
  };
}

/** An ```http answer: its status and the headers it prints. */
function readAnswer(content: string): Expected {
  const [head] = content.trim().split(/\n\s*\n/);
  const [statusLine, ...headerLines] = head!.split('\n');
  const status = Number(/^HTTP\/\S+ (\d{3})/.exec(statusLine!)![1]);
  return {
    status,
    headers: Object.fromEntries(headerLines.map(header).map(([name, value]) => [name.toLowerCase(), value])),
  };
}

function header(line: string): [string, string] {
  const colon = line.indexOf(':');
  if (colon < 1) throw new Error(`not a header: ${line}`);
  return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
}

/** Shell words of a command line: single and double quotes, backslash escapes; `#` outside quotes starts a comment. */
export function shellWords(command: string): { words: string[]; comment: string } {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed ' in ${command}`);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let value = '';
      for (; j < command.length && command[j] !== '"'; j++)
        value += command[j] === '\\' && /["\\$`]/.test(command[j + 1] ?? '') ? command[++j] : command[j];
      if (j >= command.length) throw new Error(`unclosed " in ${command}`);
      word = (word ?? '') + value;
      i = j;
    } else if (c === '\\' && i + 1 < command.length) {
      word = (word ?? '') + command[++i];
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) {
      return { words, comment: command.slice(i + 1).trim() };
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return { words, comment: '' };
}

/** A curl command as curl would send it, and what its trailing comment says of the answer. */
function readCurl(
  command: string,
): Pick<PrintedRequest, 'method' | 'path' | 'headers' | 'body' | 'expected' | 'globOff'> {
  const { words, comment } = shellWords(command.replace(/^\s*\$\s+/, ''));
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${command}`);
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  let globOff = false;
  const headers: Array<[string, string]> = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-X' || word === '--request') method = words[++i];
    else if (word === '-H' || word === '--header') headers.push(header(words[++i]!));
    else if (word === '-d' || word === '--data' || word === '--data-raw' || word === '--data-binary') body = words[++i];
    else if (word === '-g' || word === '--globoff') globOff = true;
    else if (['-i', '-s', '-S', '-sS', '-v', '--include', '--silent'].includes(word)) continue;
    else if (word.startsWith('-')) throw new Error(`curl option ${word} is not understood by this test: ${command}`);
    else if (url === undefined) url = word;
    else throw new Error(`two URLs in ${command}`);
  }
  if (url === undefined || !url.startsWith(DEMO_ORIGIN))
    throw new Error(`curl to ${url}: README requests go to ${DEMO_ORIGIN}, the demo: ${command}`);
  // curl's own defaults: -d makes a POST with a form content type unless a header names one.
  if (body !== undefined && !headers.some(([name]) => name.toLowerCase() === 'content-type'))
    headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
  return {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    path: url.slice(DEMO_ORIGIN.length) || '/',
    headers,
    ...(body !== undefined && { body }),
    expected: readComment(comment),
    globOff,
  };
}

/**
 * `403 read_only at /data/attributes/createdAt: why`: the status, then optionally the error's
 * code (a lower-case word right after it) and its source (after `at`: a pointer, or a
 * parameter such as `filter[status]`); any words after a colon are the reader's.
 */
function readComment(comment: string): Expected {
  const stated = /^(\d{3})(?: (?!at )([a-z][a-z_]*))?(?: at (\/[^\s:,;]*|[^\s:,;]*\[[^\s:,;]*))?(?=[:\s]|$)/.exec(
    comment,
  );
  if (!stated) return {};
  return { status: Number(stated[1]), ...(stated[2] && { code: stated[2] }), ...(stated[3] && { source: stated[3] }) };
}
