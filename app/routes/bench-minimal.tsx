import { data } from "react-router";

/**
 * The floor the home-page benchmark compares against: the smallest page React Router can serve
 * through this same server and document shell. Exists only while benchmarking.
 */
export function loader() {
  if (process.env.MUTUAL_BENCH !== "1") throw data(null, { status: 404 });
  return null;
}

export default function Minimal() {
  return <h1>Minimal page</h1>;
}
