// Types of bundle-report.mjs for the tests that read the build's load report.
export interface LoadRow {
  module: string;
  output: string;
  bytes: number;
  files: number;
  largestFile: number;
  heaviest: { name: string; bytes: number }[];
  lazy: string[];
}
export function loadReport(metafile: unknown, entryBytes?: number): LoadRow[];
