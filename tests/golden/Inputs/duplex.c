/* Positive control of no_duplex.py: plain clang (duplexes on) packs these small moves, stores
 * and the frame set-up in pairs. */
int g(int, int, int*);
int f(int* p) {
  int a = g(1, 2, p);
  p[1] = 0;
  p[2] = a;
  return g(3, 4, p + 2) + 5;
}
