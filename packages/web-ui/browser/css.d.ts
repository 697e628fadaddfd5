/** Style sheets imported by the entry are bundled by esbuild into `app.css`. */
declare module "*.css";
