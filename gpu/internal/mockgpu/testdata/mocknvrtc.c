/*
 * A stand-in for libnvrtc, written for hmmgo's tests. "Compiling" copies
 * the source and records the options; the output is PTX text, or a fake
 * ELF "CUBIN" when an -arch=sm_XX option asks for one. It fails like NVRTC
 * does for sources containing "#error" (with a log naming the program and
 * line) and for unknown options. mock_compile_count reports how many
 * compilations ran, so the tests can see cache hits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvrtcResult;
enum { SUCCESS = 0, INVALID_INPUT = 3, INVALID_PROGRAM = 4, INVALID_OPTION = 5, COMPILATION = 6,
       NO_LOWERED_NAMES_BEFORE_COMPILATION = 9, NAME_EXPRESSION_NOT_VALID = 10 };

struct prog {
  char *src, *name, *log, *out;
  size_t outlen;
  int cubin, compiled, nheaders;
  char *exprs[16], *lowered[16];
  int nexprs;
};

static int compiles;
int mock_compile_count(void) { return compiles; }

static char *dup(const char *s) { return strdup(s ? s : ""); }

nvrtcResult nvrtcVersion(int *major, int *minor) { *major = 13; *minor = 0; return SUCCESS; }
nvrtcResult nvrtcGetNumSupportedArchs(int *n) { *n = 3; return SUCCESS; }
nvrtcResult nvrtcGetSupportedArchs(int *a) { a[0] = 75; a[1] = 80; a[2] = 90; return SUCCESS; }

const char *nvrtcGetErrorString(nvrtcResult r) {
  switch (r) {
  case SUCCESS: return "NVRTC_SUCCESS";
  case INVALID_INPUT: return "NVRTC_ERROR_INVALID_INPUT";
  case INVALID_PROGRAM: return "NVRTC_ERROR_INVALID_PROGRAM";
  case INVALID_OPTION: return "NVRTC_ERROR_INVALID_OPTION";
  case COMPILATION: return "NVRTC_ERROR_COMPILATION";
  }
  return "NVRTC_ERROR unknown";
}

nvrtcResult nvrtcCreateProgram(struct prog **p, const char *src, const char *name, int nh,
                               const char *const *headers, const char *const *includes) {
  if (!p || !src) return INVALID_INPUT;
  *p = calloc(1, sizeof **p);
  (*p)->src = dup(src);
  (*p)->name = dup(name ? name : "default_program");
  (*p)->log = dup("");
  (*p)->nheaders = nh;
  for (int i = 0; i < nh; i++) /* touch every header so a bad array faults here */
    if (!headers[i] || !includes[i]) return INVALID_INPUT;
  return SUCCESS;
}

nvrtcResult nvrtcDestroyProgram(struct prog **p) {
  if (!p || !*p) return INVALID_PROGRAM;
  free((*p)->src); free((*p)->name); free((*p)->log); free((*p)->out);
  for (int i = 0; i < (*p)->nexprs; i++) { free((*p)->exprs[i]); free((*p)->lowered[i]); }
  free(*p);
  *p = NULL;
  return SUCCESS;
}

nvrtcResult nvrtcAddNameExpression(struct prog *p, const char *e) {
  if (!p || p->nexprs == 16) return INVALID_INPUT;
  p->exprs[p->nexprs++] = dup(e);
  return SUCCESS;
}

nvrtcResult nvrtcCompileProgram(struct prog *p, int n, const char *const *opts) {
  if (!p) return INVALID_PROGRAM;
  compiles++;
  size_t cap = strlen(p->src) + 4096;
  char *out = calloc(1, cap);
  p->cubin = 0;
  strcat(out, "// mock PTX\n// options:");
  for (int i = 0; i < n; i++) {
    if (!strncmp(opts[i], "--bad", 5)) {
      free(p->log);
      p->log = malloc(strlen(opts[i]) + 64);
      sprintf(p->log, "nvrtc: error: unrecognized option %s", opts[i]);
      free(out);
      return INVALID_OPTION;
    }
    if (!strncmp(opts[i], "-arch=sm_", 9) || !strncmp(opts[i], "--gpu-architecture=sm_", 22)) p->cubin = 1;
    strncat(out, " ", cap - strlen(out) - 1);
    strncat(out, opts[i], cap - strlen(out) - 1);
  }
  strncat(out, "\n", cap - strlen(out) - 1);
  const char *err = strstr(p->src, "#error");
  if (err) {
    int line = 1;
    for (const char *c = p->src; c < err; c++) line += *c == '\n';
    free(p->log);
    p->log = malloc(strlen(p->name) + 128);
    sprintf(p->log, "%s(%d): error: #error directive: \"mock failure\"\n\n1 error detected in the compilation of \"%s\".\n",
            p->name, line, p->name);
    free(out);
    return COMPILATION;
  }
  strncat(out, p->src, cap - strlen(out) - 1);
  if (p->cubin) { /* a fake ELF: the magic is what the loader looks at */
    memmove(out + 4, out, strlen(out) + 1);
    memcpy(out, "\x7f" "ELF", 4);
  }
  p->out = out;
  p->outlen = strlen(out) + 1;
  for (int i = 0; i < p->nexprs; i++) {
    p->lowered[i] = malloc(strlen(p->exprs[i]) + 16);
    sprintf(p->lowered[i], "_Z_mock_%s", p->exprs[i]);
  }
  free(p->log);
  p->log = dup(strstr(p->src, "#warning") ? "warning: mock warning\n" : "");
  p->compiled = 1;
  return SUCCESS;
}

nvrtcResult nvrtcGetPTXSize(struct prog *p, size_t *n) {
  if (!p || !p->compiled) return INVALID_PROGRAM;
  *n = p->outlen;
  return SUCCESS;
}

nvrtcResult nvrtcGetPTX(struct prog *p, char *buf) {
  if (!p || !p->compiled) return INVALID_PROGRAM;
  memcpy(buf, p->out, p->outlen);
  return SUCCESS;
}

/* Like NVRTC: a CUBIN exists only for a real (sm_XX) target. */
nvrtcResult nvrtcGetCUBINSize(struct prog *p, size_t *n) {
  if (!p || !p->compiled) return INVALID_PROGRAM;
  *n = p->cubin ? p->outlen : 0;
  return SUCCESS;
}

nvrtcResult nvrtcGetCUBIN(struct prog *p, char *buf) {
  if (!p || !p->compiled || !p->cubin) return INVALID_INPUT;
  memcpy(buf, p->out, p->outlen);
  return SUCCESS;
}

nvrtcResult nvrtcGetProgramLogSize(struct prog *p, size_t *n) {
  if (!p) return INVALID_PROGRAM;
  *n = strlen(p->log) + 1;
  return SUCCESS;
}

nvrtcResult nvrtcGetProgramLog(struct prog *p, char *buf) {
  if (!p) return INVALID_PROGRAM;
  strcpy(buf, p->log);
  return SUCCESS;
}

nvrtcResult nvrtcGetLoweredName(struct prog *p, const char *e, const char **lowered) {
  if (!p) return INVALID_PROGRAM;
  if (!p->compiled) return NO_LOWERED_NAMES_BEFORE_COMPILATION;
  for (int i = 0; i < p->nexprs; i++)
    if (!strcmp(p->exprs[i], e)) { *lowered = p->lowered[i]; return SUCCESS; }
  return NAME_EXPRESSION_NOT_VALID;
}
