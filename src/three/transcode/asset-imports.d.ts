// Bundler asset imports (Vite, and the library build): `?raw` is the file's text, `?url` its URL.
declare module '*?raw' {
  const text: string;
  export default text;
}
declare module '*?url' {
  const url: string;
  export default url;
}
