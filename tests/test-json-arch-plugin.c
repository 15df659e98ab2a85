/* test-json-arch-plugin.c: the `json` architecture model, opened the way
 * the host opens it (GModule, one descriptor symbol) but without the
 * registry: its descriptor, the architectures it offers (every *.json of the
 * data folders, FFM_DATA_PATH first), descriptions, parameters, and builds
 * by name and by path. */
#include <ffm/ffm.h>
#include "inputs.h"

#include <glib/gstdio.h>
#include <string.h>

static const FfmArchModelVTable *
open_json_model (void)
{
  static const FfmArchModelVTable *vtable;
  g_autofree char *path = NULL;
  GModule *module;
  FfmPluginGetDescriptorFunc get_descriptor = NULL;
  const FfmPluginDescriptor *descriptor;

  if (vtable != NULL)
    return vtable;
  path = g_test_build_filename (G_TEST_BUILT, "..", "arch-models", "json",
                                "ffm-arch-json.so", NULL);
  module = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    g_error ("cannot open %s: %s", path, g_module_error ());
  g_module_make_resident (module);
  g_assert_true (g_module_symbol (module, FFM_PLUGIN_ENTRY_SYMBOL,
                                  (gpointer *) &get_descriptor));
  descriptor = get_descriptor ();
  g_assert_cmpuint (descriptor->abi_major, ==, FFM_PLUGIN_ABI_MAJOR);
  g_assert_cmpuint (descriptor->abi_minor, ==, FFM_PLUGIN_ABI_MINOR);
  g_assert_cmpuint (descriptor->struct_size, ==, sizeof (FfmPluginDescriptor));
  g_assert_cmpint (descriptor->kind, ==, FFM_PLUGIN_KIND_ARCH_MODEL);
  g_assert_cmpstr (descriptor->name, ==, "json");
  g_assert_nonnull (descriptor->version);
  g_assert_nonnull (descriptor->summary);
  for (guint i = 0; i < G_N_ELEMENTS (descriptor->reserved); i++)
    g_assert_null (descriptor->reserved[i]);
  vtable = descriptor->vtable.arch;
  g_assert_cmpuint (vtable->struct_size, ==, sizeof (FfmArchModelVTable));
  g_assert_nonnull (vtable->list_architectures);
  g_assert_nonnull (vtable->describe);
  g_assert_nonnull (vtable->get_params);
  g_assert_nonnull (vtable->build);
  return vtable;
}

static void
test_descriptor (void)
{
  g_test_summary ("The json model exports a valid architecture-model descriptor");
  g_assert_nonnull (open_json_model ());
}

static void
test_list (void)
{
  const FfmArchModelVTable *json = open_json_model ();
  g_auto (GStrv) names = json->list_architectures ();

  g_test_summary ("Every shipped JSON architecture is offered by name, sorted");
  g_assert_cmpuint (g_strv_length (names), ==, g_strv_length ((char **) inputs_shipped_arch_names));
  for (guint i = 0; inputs_shipped_arch_names[i] != NULL; i++)
    g_assert_cmpstr (names[i], ==, inputs_shipped_arch_names[i]);
}

static void
test_describe (void)
{
  const FfmArchModelVTable *json = open_json_model ();
  g_autofree char *simple = json->describe ("simple");
  g_autofree char *none = json->describe ("no-such-arch");

  g_test_summary ("describe() gives the file's description, NULL for an unknown name");
  g_assert_cmpstr (simple, ==, "DRAM, one global buffer and one MAC; 1 J per "
                   "bit moved and per operation, so energy counts bits and operations");
  g_assert_null (none);
  for (guint i = 0; inputs_shipped_arch_names[i] != NULL; i++)
    {
      g_autofree char *text = json->describe (inputs_shipped_arch_names[i]);
      g_assert_nonnull (text);
      g_assert_cmpuint (strlen (text), >, 20);
    }
}

static void
test_params (void)
{
  const FfmArchModelVTable *json = open_json_model ();
  g_autoptr (GError) error = NULL;
  FfmParamSpec *specs = json->get_params ("simple", &error);

  g_test_summary ("get_params() gives the file's declared parameters");
  g_assert_no_error (error);
  g_assert_cmpstr (specs[0].name, ==, "main_memory_energy");
  g_assert_cmpstr (specs[0].default_value, ==, "1");
  g_assert_cmpstr (specs[1].name, ==, "global_buffer_size");
  g_assert_cmpstr (specs[1].default_value, ==, "inf");
  g_assert_cmpstr (specs[2].name, ==, "global_buffer_throughput");
  g_assert_null (specs[3].name);
  ffm_param_specs_free (specs);

  g_assert_null (json->get_params ("nope", &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND);
}

static void
test_build (void)
{
  const FfmArchModelVTable *json = open_json_model ();
  g_autoptr (FfmParamValues) values = ffm_param_values_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (FfmArch) arch = NULL;
  g_autoptr (FfmArch) by_path = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "arch",
                                                 "valid", "minimal.json", NULL);

  g_test_summary ("build() loads an architecture by name with parameters, "
                  "or by path; an unknown name lists the available ones");
  ffm_param_values_set (values, "global_buffer_size", "8192");
  arch = json->build ("simple", values, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_name (arch), ==, "simple");
  g_assert_cmpfloat (ffm_arch_get_level (arch, 1)->u.memory.size, ==, 8192);

  by_path = json->build (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ffm_arch_get_name (by_path), ==, "minimal");

  g_assert_null (json->build ("simpel", NULL, &error));
  g_assert_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND);
  {
    g_autofree char *names = g_strjoinv (", ", (char **) inputs_shipped_arch_names);
    g_autofree char *expected = g_strdup_printf ("no JSON architecture named \"simpel\" "
                                                 "(available: %s)", names);
    g_assert_cmpstr (error->message, ==, expected);
  }
  g_clear_error (&error);

  ffm_param_values_set (values, "glb_sise", "1");
  g_assert_null (json->build ("simple", values, &error));
  g_assert_error (error, FFM_PARAM_ERROR, FFM_PARAM_ERROR_UNKNOWN);
  g_assert_nonnull (strstr (error->message, "architecture simple: unknown parameter 'glb_sise'"));
}

/* FFM_DATA_PATH folders come first, and shadow same-named shipped files. */
static void
test_data_path (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *dir = g_dir_make_tmp ("ffm-json-arch-XXXXXX", &error);
      g_autofree char *arch_dir = g_build_filename (dir, "architectures", NULL);
      g_autofree char *mine = g_build_filename (arch_dir, "zz-mine.json", NULL);
      g_autofree char *simple = g_build_filename (arch_dir, "simple.json", NULL);
      const char *text = "{ \"ffm_architecture\": 1, \"description\": \"mine\","
                         " \"levels\": [ { \"memory\": \"M\", \"size\": 64 },"
                         " { \"compute\": \"C\" } ] }";
      const FfmArchModelVTable *json;
      g_auto (GStrv) names = NULL;
      g_autoptr (FfmArch) arch = NULL;
      g_autofree char *description = NULL;

      g_assert_no_error (error);
      g_assert_cmpint (g_mkdir (arch_dir, 0700), ==, 0);
      g_assert_true (g_file_set_contents (mine, text, -1, NULL));
      g_assert_true (g_file_set_contents (simple, text, -1, NULL));
      g_setenv ("FFM_DATA_PATH", dir, TRUE);
      json = open_json_model ();
      names = json->list_architectures ();
      /* the shipped ones and zz-mine, simple shadowed */
      g_assert_cmpuint (g_strv_length (names), ==, g_strv_length ((char **) inputs_shipped_arch_names) + 1);
      g_assert_cmpstr (names[0], ==, "simple");
      g_assert_cmpstr (names[1], ==, "zz-mine");
      g_assert_cmpstr (names[2], ==, "eyeriss");
      description = json->describe ("simple");
      g_assert_cmpstr (description, ==, "mine");
      arch = json->build ("zz-mine", NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (ffm_arch_get_name (arch), ==, "zz-mine");
      g_remove (mine);
      g_remove (simple);
      g_rmdir (arch_dir);
      g_rmdir (dir);
      return;
    }
  g_test_summary ("Architectures in FFM_DATA_PATH folders are offered first "
                  "and shadow shipped ones of the same name");
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json-arch-plugin/descriptor", test_descriptor);
  g_test_add_func ("/json-arch-plugin/list", test_list);
  g_test_add_func ("/json-arch-plugin/describe", test_describe);
  g_test_add_func ("/json-arch-plugin/params", test_params);
  g_test_add_func ("/json-arch-plugin/build", test_build);
  g_test_add_func ("/json-arch-plugin/data-path", test_data_path);
  return g_test_run ();
}
