// A mistake on the command line: the CLI prints its message as one line and exits with code 2.
export class UsageError extends Error {}
