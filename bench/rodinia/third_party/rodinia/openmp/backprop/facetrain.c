#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "backprop.h"
#include "omp.h"

extern char *strcpy();
extern void exit();

int layer_size = 0;

backprop_face()
{
  BPNN *net;
  int i;
  float out_err, hid_err;
  net = bpnn_create(layer_size, 16, 1); // (16, 1 can not be changed)
  printf("Input layer size : %d\n", layer_size);
  load(net);
  //entering the training kernel, only one iteration
  printf("Starting training kernel\n");
  double loom_bench_start = omp_get_wtime(); /* loom bench: the training step's time */
  bpnn_train_kernel(net, &out_err, &hid_err);
  printf("RODINIA_KERNEL_MS %.6f\n", (omp_get_wtime() - loom_bench_start) * 1e3);
  { /* loom bench: the weights after the step, every bit, for the driver */
    FILE *loom_bench_out = fopen("output.bin", "wb");
    for (i = 0; i <= net->input_n; i++)
      fwrite(net->input_weights[i], sizeof(float), net->hidden_n + 1, loom_bench_out);
    for (i = 0; i <= net->hidden_n; i++)
      fwrite(net->hidden_weights[i], sizeof(float), net->output_n + 1, loom_bench_out);
    fclose(loom_bench_out);
  }
  bpnn_free(net);
  printf("Training done\n");
}

int setup(argc, argv)
int argc;
char *argv[];
{
  if(argc!=2){
  fprintf(stderr, "usage: backprop <num of input elements>\n");
  exit(0);
  }

  layer_size = atoi(argv[1]);
  
  int seed;

  seed = 7;   
  bpnn_initialize(seed);
  backprop_face();

  exit(0);
}
