#include "{root}/solutions/01_cpu_reference/cpu_reference.c"
