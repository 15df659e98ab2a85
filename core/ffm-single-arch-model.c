/* ffm-single-arch-model.c: the vtable of a model of one architecture
 * (ffm-single-arch-model.h). */
#include <ffm/ffm-single-arch-model.h>

#include <string.h>

/* TRUE if @arch_name is @model's; otherwise FALSE with @error (may be
 * NULL) naming the one it offers. */
static gboolean
check_name (const FfmSingleArchModel *model, const char *arch_name, GError **error)
{
  if (arch_name != NULL && strcmp (arch_name, model->name) == 0)
    return TRUE;
  g_set_error (error, FFM_ARCH_ERROR, FFM_ARCH_ERROR_NOT_FOUND,
               "architecture model %s: no architecture '%s' (this model offers only '%s')",
               model->name, arch_name != NULL ? arch_name : "(null)", model->name);
  return FALSE;
}

GStrv
ffm_single_arch_model_list (const FfmSingleArchModel *model)
{
  const char *names[] = { model->name, NULL };

  return g_strdupv ((char **) names);
}

char *
ffm_single_arch_model_describe (const FfmSingleArchModel *model, const char *arch_name)
{
  if (!check_name (model, arch_name, NULL))
    return NULL;
  return g_strdup (model->summary);
}

FfmParamSpec *
ffm_single_arch_model_get_params (const FfmSingleArchModel *model, const char *arch_name,
                                  GError **error)
{
  if (!check_name (model, arch_name, error))
    return NULL;
  return ffm_param_specs_copy (model->params);
}

FfmArch *
ffm_single_arch_model_build (const FfmSingleArchModel *model, const char *arch_name,
                             const FfmParamValues *values, GError **error)
{
  g_autofree char *owner = NULL;
  g_autofree void *config = NULL;
  g_autoptr (FfmArch) arch = NULL;

  if (!check_name (model, arch_name, error))
    return NULL;
  owner = g_strdup_printf ("architecture %s", model->name);
  config = g_malloc0 (model->config_size);
  if (!ffm_param_values_read_all (values, model->params, owner, model->param_offsets,
                                  config, error))
    return NULL;
  arch = ffm_arch_new (model->name);
  ffm_arch_set_description (arch, model->summary);
  ffm_arch_set_source (arch, model->source);
  if (!model->add_levels (arch, config, error) || !ffm_arch_finish (arch, error))
    return NULL;
  return g_steal_pointer (&arch);
}
