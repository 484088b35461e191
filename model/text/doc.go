// Package text makes strings from outside koff (keys, values, names, REST
// bodies, broker errors) safe to show: the one sanitiser that writes out
// visibly whatever a terminal would act on, and the look-alike test for
// names that read the same. Standard library only.
package text
