/** Vite's raw import: a file's text (the vendored-asset tests compare against node_modules). */
declare module "*?raw" {
  const text: string;
  export default text;
}
