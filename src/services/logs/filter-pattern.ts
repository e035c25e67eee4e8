// CloudWatch Logs filter patterns for unstructured log events: terms that must all appear
// (`ERROR Exception`), exact phrases (`"Model saved"`), optional terms of which one must appear
// (`?ERROR ?WARN`) and excluded terms (`ERROR -Retrying`); matching is case-sensitive.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html
import { InvalidParameterException } from '../../generated/logs/errors.js';

export type EventMatcher = (message: string) => boolean;

/** Compiles a filter pattern; an empty pattern matches every event. */
export function compileFilterPattern(pattern: string | undefined): EventMatcher {
  const text = (pattern ?? '').trim();
  if (text === '') return () => true;
  // DEVIATION(aws): JSON (`{ $.level = "x" }`), space-delimited (`[ip, user, ...]`) and regex
  // (`%...%`) patterns are refused rather than evaluated.
  if (/^[{[%]/.test(text)) {
    throw new InvalidParameterException(
      `Invalid filter pattern: only term and phrase patterns are supported ("${text}").`,
    );
  }
  const all: string[] = [];
  const any: string[] = [];
  const none: string[] = [];
  const re = /([?-]?)(?:"((?:[^"\\]|\\.)*)"|(\S+))/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const term = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
    (m[1] === '?' ? any : m[1] === '-' ? none : all).push(term);
  }
  return (message) =>
    all.every((t) => message.includes(t)) &&
    (any.length === 0 || any.some((t) => message.includes(t))) &&
    !none.some((t) => message.includes(t));
}
