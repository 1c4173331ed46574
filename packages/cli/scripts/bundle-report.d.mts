// Types of bundle-report.mjs for the tests that read the build's load report.
export interface LoadRow {
  module: string;
  output: string;
  bytes: number;
  files: number;
  largestFile: number;
  heaviest: { name: string; bytes: number }[];
  /** Every package (or workspace package) with code in the files it loads. */
  packages: string[];
  lazy: string[];
}
export function loadReport(metafile: unknown, entryBytes?: number): LoadRow[];
