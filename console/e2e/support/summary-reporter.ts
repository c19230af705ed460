import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

/**
 * One last line in the shape the project's CI counts ("console: N passed, N failed"): a skipped, interrupted or
 * timed-out journey counts as failed, since nothing here may be skipped.
 */
export default class SummaryReporter implements Reporter {
  private passed = 0;
  private failed = 0;

  onTestEnd(_test: TestCase, result: TestResult) {
    if (result.status === 'passed') this.passed += 1;
    else this.failed += 1;
  }

  onEnd(result: FullResult) {
    if (result.status !== 'passed' && this.failed === 0) this.failed = 1; // the run itself failed (setup, a crash)
    process.stdout.write(`console: ${this.passed} passed, ${this.failed} failed\n`);
  }

  printsToStdio() {
    return false;
  }
}
