import readline from 'node:readline';

/**
 * A password from the terminal without echoing it, or the first line of standard input when that is not a terminal
 * (`… | lead-service login`): never on the command line, where every user of the machine sees it (ps).
 */
export async function readPassword(input: NodeJS.ReadStream): Promise<string> {
  if (!input.isTTY) {
    // The first line only: input that stays open after it (an agent's pipe) does not hold the command.
    const lines = readline.createInterface({ input, crlfDelay: Infinity });
    for await (const line of lines) {
      lines.close();
      return line;
    }
    return '';
  }
  // No echo from before the prompt shows: what is typed once it is seen is never echoed.
  input.setRawMode(true);
  process.stderr.write('Password: ');
  input.resume();
  return new Promise((resolve) => {
    let typed = '';
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          input.setRawMode(false);
          input.pause();
          input.off('data', onData);
          process.stderr.write('\n');
          return resolve(typed);
        }
        if (char === '\u0003') {
          input.setRawMode(false);
          process.exit(130);
        }
        typed = char === '\u007f' ? typed.slice(0, -1) : typed + char;
      }
    };
    input.on('data', onData);
  });
}
