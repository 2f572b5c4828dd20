/**
 * How the CLI talks: short lines, coloured only when the stream is a terminal and `NO_COLOR` is
 * unset (https://no-color.org; `FORCE_COLOR=1` forces colour, `FORCE_COLOR=0` disables it).
 */

export interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Styles {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
}

/** Whether to colour text written to `stream`, given the environment. */
export function useColor(stream: Stream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string) => text;

export function styles(color: boolean): Styles {
  return color
    ? { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39) }
    : { bold: plain, dim: plain, red: plain, green: plain, yellow: plain };
}

/** Where the CLI writes: lines for people on `out`/`err`, each with its own styles. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Styles for lines written with `out`. */
  readonly outStyle: Styles;
  /** Styles for lines written with `err`. */
  readonly errStyle: Styles;
}

/** An `Io` writing to two streams (by default the process's stdout and stderr). */
export function streamIo(
  stdout: Stream = process.stdout,
  stderr: Stream = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): Io {
  return {
    out: (line) => void stdout.write(line + '\n'),
    err: (line) => void stderr.write(line + '\n'),
    outStyle: styles(useColor(stdout, env)),
    errStyle: styles(useColor(stderr, env)),
  };
}

/** A schema error's text with its `error:` markers in red. */
export function styleProblems(text: string, style: Styles): string {
  return text
    .replace(/ - error: /g, ` - ${style.red('error')}: `)
    .replace(/^(\s+\d+ \| .*\n\s+\| +)\^/gm, (_, head: string) => head + style.red('^'));
}
