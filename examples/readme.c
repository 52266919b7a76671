/* The README's example: y = relu(x W + b), built and run through the C API. */
#include <cairn.h>
#include <stdio.h>

int main(void)
{
    float w[3 * 2] = {1, -1, 2, 0, -1, 3}, b[2] = {0.5f, -4}, x[2 * 3] = {1, 2, 3, 4, 5, 6};
    cairn_tensor_t wt = {CAIRN_F32, 2, {3, 2}, w}, bt = {CAIRN_F32, 1, {2}, b};
    cairn_graph_t *g;
    cairn_value_id in, W, B, xw, xwb, y;
    cairn_graph_create(&g);
    cairn_graph_add_input(g, "x", CAIRN_F32, 2, (int64_t[]){0, 3}, (const char *[]){"batch", NULL}, &in);
    cairn_graph_add_constant(g, "W", &wt, &W);
    cairn_graph_add_constant(g, "b", &bt, &B);
    cairn_graph_add_node(g, "MatMul", "fc/MatMul", (cairn_value_id[]){in, W}, 2, NULL, 0, &xw, 1, NULL);
    cairn_graph_add_node(g, "Add", "fc/Add", (cairn_value_id[]){xw, B}, 2, NULL, 0, &xwb, 1, NULL);
    cairn_graph_add_node(g, "Relu", "fc/Relu", &xwb, 1, NULL, 0, &y, 1, NULL);
    cairn_graph_mark_output(g, y);
    cairn_session_t *s;
    cairn_tensor_t xt = {CAIRN_F32, 2, {2, 3}, x}, out = {0};
    if (cairn_session_create(g, NULL, &s) || cairn_session_run(s, &xt, 1, &out, 1))
        return fprintf(stderr, "cairn: %s\n", cairn_last_error()), 1;
    const float *o = out.data; /* [[2.5, 4], [8.5, 10]] */
    printf("y = [[%g, %g], [%g, %g]]\n", o[0], o[1], o[2], o[3]);
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
    return 0;
}
