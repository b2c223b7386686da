/*
 * main.c — the cutile2triton executable: everything is in cli.c (c2t_main),
 * which the Python package calls too.
 */
#include "cutile2triton.h"

int main(int argc, char **argv) { return c2t_main(argc, argv); }
