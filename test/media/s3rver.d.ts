// s3rver (a local S3-compatible server, dev dependency) ships no types.
declare module 's3rver';
