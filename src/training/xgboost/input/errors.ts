/**
 * A channel's data cannot be read: unsupported content type, malformed row, no data, feature
 * counts that do not agree. The message is written for the user (the job's FailureReason);
 * `file` and `line` locate a malformed row when there is one.
 */
export class TrainingInputError extends Error {
  override name = 'TrainingInputError';
  readonly file?: string;
  readonly line?: number;
  constructor(message: string, file?: string, line?: number) {
    super(message);
    this.file = file;
    this.line = line;
  }
}
